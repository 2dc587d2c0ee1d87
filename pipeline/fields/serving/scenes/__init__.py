"""One module per scene kind; `SCENES[kind]` draws a scene onto a panel canvas from a trace.

Every scene reads its numbers from the simulator trace (never from the plan), returns the sentence
for the panel's `<desc>`, and says whether it showed numbers (then the panel gets the 示意值 tag).
"""
