"""What each general scene draws and which of a worked example's quantities it needs, by role
(`panel.show`): the prompt's words, the validator's rules and the scenes' contract in one place.

A role is (how many entries of it a panel may give, how many quantities each holds). Every
quantity of one scene shares a unit where the scene compares them on one scale.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    name: str
    entries: tuple[int, int]  # how many `show` entries with this role (min, max)
    size: tuple[int, int]  # how many quantities each entry names (min, max)
    meaning: str


@dataclass(frozen=True)
class GeneralScene:
    kind: str
    shows: str
    roles: tuple[Role, ...]
    same_unit: bool = True  # its quantities are drawn on one scale

    def role(self, name: str) -> Role | None:
        return next((r for r in self.roles if r.name == name), None)


GENERAL_SCENES: dict[str, GeneralScene] = {
    s.kind: s
    for s in (
        GeneralScene(
            "compare",
            "two or three bars side by side on one scale, each a quantity with its label and "
            "number (which is bigger, by how much)",
            (Role("bars", (1, 1), (2, 3), "the quantities compared"),),
        ),
        GeneralScene(
            "flow",
            "things moving through stages left to right, each stage's rate; the slowest stage "
            "is the bottleneck and, when things arrive faster than it, a queue grows before it",
            (
                Role("stages", (1, 1), (2, 5), "each stage's rate, in order"),
                Role("arrival", (0, 1), (1, 1), "how fast things arrive (optional)"),
            ),
        ),
        GeneralScene(
            "container",
            "a container (a budget of money, time or memory) filled by parts stacked in it "
            "against its capacity line: it fits with room left (drawn blank), or overflows; "
            "room a part takes without being used is its own `unused` entry, drawn empty",
            (
                Role("capacity", (1, 1), (1, 1), "the container's size"),
                Role("parts", (1, 1), (1, 6), "what fills it and is used"),
                Role("unused", (0, 1), (1, 3), "room taken but not used (padding, fields nobody "
                     "reads), stacked on the parts and drawn empty, dashed (optional)"),
            ),
        ),
        GeneralScene(
            "grid",
            "a grid of slots (seats, pages, lines of a cache...), some held (kept from before, "
            "blue), some new (taken or made just now, orange), some freed, the rest empty; at "
            "most 48 slots. It draws counts, filled in reading order, never which cell is "
            "where: not for a pattern such as a triangular mask. An empty slot is unused room, "
            "not something kept",
            (
                Role("slots", (1, 1), (1, 1), "how many slots there are"),
                Role("held", (1, 1), (1, 1), "how many are held, kept from before (may be 0)"),
                Role("new", (0, 1), (1, 1), "how many are new this moment (optional)"),
                Role("freed", (0, 1), (1, 1), "how many were just freed (optional)"),
            ),
            same_unit=False,
        ),
        GeneralScene(
            "lanes",
            "one lane per actor on a time axis, each lane a row of segments in order (waiting, "
            "working, ...), so who waits and who works when shows at a glance. Lanes never "
            "touch: draw one actor waiting for another as that lane's wait, and do not draw "
            "work that depends on other lanes as independent lanes",
            (Role("lane", (1, 4), (1, 6), "one lane: its segments' durations in order, waiting "
                  "and working by turns from a wait (a lane that starts working begins with a "
                  "wait of 0)"),),
        ),
        GeneralScene(
            "line",
            "one or two series of values at equal steps in order (a sum after 0, 10, 20, 30 "
            "years), each an ink line through its points on one scale from zero, so a straight "
            "line and a curve that steepens show apart; each line ends in its last quantity's "
            "label and number",
            (Role("series", (1, 2), (2, 8), "one line: its values in order, one per step (the "
                  "same steps in both lines); its last quantity's label names the line"),),
        ),
        GeneralScene(
            "before_after",
            "one quantity before and after a change, as two bars with the change marked",
            (
                Role("before", (1, 1), (1, 1), "the quantity before"),
                Role("after", (1, 1), (1, 1), "the quantity after"),
            ),
        ),
    )
}
MAX_GRID_SLOTS = 48


def role_text(scene: GeneralScene) -> str:
    """The scene's roles as the prompt lists them: `capacity` (1 quantity): the container's size."""
    parts = []
    for r in scene.roles:
        times = "" if r.entries == (1, 1) else f", {r.entries[0]}-{r.entries[1]} entries"
        size = f"{r.size[0]}" if r.size[0] == r.size[1] else f"{r.size[0]}-{r.size[1]}"
        parts.append(f"`{r.name}` ({size} quantit{'y' if size == '1' else 'ies'}{times}): "
                     f"{r.meaning}")
    return "; ".join(parts)
