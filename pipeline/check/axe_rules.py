"""Which of axe-core's findings the second theme of a width may take from the first instead of
running the rule itself, written down from axe-core 4.14.1's rule metadata (`axe.getRules()`
and `axe._audit.rules`: each rule's tags, its `excludeHidden` flag) and its source
(`.cache/npm/node_modules/axe-core/axe.js`: which rules read the ARIA state attributes).

A theme switch may change two things the rules below do not see:
- the values of the ARIA state attributes in `STATE_ATTRIBUTES` (the example's theme toggle sets
  `aria-pressed`). In axe.js the values of these five are read only by functions that belong to
  rules tagged `cat.aria` (the attribute validators `aria-valid-attr-value`, `aria-allowed-attr`,
  `aria-conditional-attr`, `aria-prohibited-attr`, `aria-required-attr`, `aria-valid-attr`
  iterate over every `aria-*` attribute; `aria-required-children` reads `aria-busy`); elsewhere
  they are named only by the CSS-selector builder, which ignores them, or tested for presence,
  which the DOM key keeps equal. The other states are left out on purpose: `aria-selected` feeds
  the accessible name of a listbox (`label`, `select-name`, ...), `aria-disabled` feeds
  `isDisabled` (`target-size`, ...), `aria-checked` and `aria-expanded` were not traced.
- the computed styles and boxes of elements hidden from assistive technology (inside
  `aria-hidden="true"`; the toggle's sun and moon). A rule with `excludeHidden: true` (axe's
  default) never matches them; the rules with `excludeHidden: false` (`duplicate-id`,
  `aria-hidden-focus`, `meta-viewport`, ...) do, so they are not shared.

So a rule is shared when it is not tagged `cat.color` (colours change with the theme), not
tagged `cat.aria`, and keeps hidden elements out. `tests/browser/test_check_themes.py` checks
`SHARED_RULES` against the installed axe-core's metadata, so an upgrade that moves a rule fails
there; a rule axe-core adds later is not in the list and runs in every theme.
"""

from __future__ import annotations

AXE_VERSION = "4.14.1"
PER_THEME_TAGS = ("cat.color", "cat.aria")
STATE_ATTRIBUTES = ("aria-busy", "aria-current", "aria-grabbed", "aria-invalid", "aria-pressed")

SHARED_RULES = (
    "autocomplete-valid", "avoid-inline-spacing", "button-name", "bypass",
    "css-orientation-lock", "definition-list", "dlitem", "document-title", "empty-heading",
    "empty-table-header", "focus-order-semantics", "form-field-multiple-labels",
    "frame-focusable-content", "frame-tested", "frame-title", "frame-title-unique",
    "heading-order", "html-has-lang", "html-lang-valid", "html-xml-lang-mismatch", "image-alt",
    "image-redundant-alt", "input-button-name", "input-image-alt", "label",
    "label-content-name-mismatch", "label-title-only", "landmark-banner-is-top-level",
    "landmark-complementary-is-top-level", "landmark-contentinfo-is-top-level",
    "landmark-main-is-top-level", "landmark-no-duplicate-banner",
    "landmark-no-duplicate-contentinfo", "landmark-no-duplicate-main", "landmark-one-main",
    "landmark-unique", "link-name", "list", "listitem", "nested-interactive", "object-alt",
    "p-as-heading", "page-has-heading-one", "region", "role-img-alt", "scope-attr-valid",
    "scrollable-region-focusable", "select-name", "server-side-image-map", "skip-link",
    "summary-name", "svg-img-alt", "tabindex", "table-duplicate-name", "table-fake-caption",
    "target-size", "td-has-header", "td-headers-attr", "th-has-data-cells", "valid-lang",
    "video-caption",
)  # fmt: skip

# The rules axe-core itself would share by the criterion above (tests compare it with the list).
SHARED_BY_METADATA_JS = """(tags) => axe._audit.rules
  .filter(r => r.excludeHidden !== false && !r.tags.some(t => tags.includes(t)))
  .map(r => r.id).sort()"""
