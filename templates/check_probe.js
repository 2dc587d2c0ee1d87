/* tujie check probe: evaluated in the page by pipeline/browser.py after document.fonts.ready.
   Collects text boxes, panel insets, card and section boxes, captions, body paragraphs, diagrams without a
   <title>, horizontal overflow and font targets, all in page coordinates (CSS px). It measures;
   pipeline/check.py judges. The DOM hooks it reads are described in templates/MARKUP.md. */
async () => {
  const sx = window.scrollX, sy = window.scrollY;
  const vw = document.documentElement.clientWidth;
  const round = v => Math.round(v * 10) / 10;
  const rectBox = r => [round(r.left + sx), round(r.top + sy), round(r.width), round(r.height)];
  const visible = el => !el.checkVisibility ||
    el.checkVisibility({opacityProperty: true, visibilityProperty: true});

  // A stable name for an element: its id, else a path from the nearest ancestor with an id.
  const ident = el => {
    if (el.id) return el.id;
    const parts = [];
    let cur = el;
    while (cur && cur !== document.documentElement && !cur.id) {
      const tag = cur.tagName.toLowerCase();
      const parent = cur.parentElement;
      if (!parent) { parts.unshift(tag); break; }
      const same = Array.from(parent.children).filter(c => c.tagName === cur.tagName);
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(cur) + 1})` : tag);
      cur = parent;
    }
    const root = cur && cur.id ? `#${cur.id}` : 'html';
    return [root, ...parts].join(' > ');
  };
  const where = el => {
    const card = el.closest('article.card');
    const panel = el.closest('svg.panel');
    return {card: card ? (card.dataset.card || card.id) : null,
            panel: panel ? (panel.dataset.panel || panel.id) : null};
  };

  // SVG user-space box -> page box through the element's screen CTM (includes viewBox, SVG and
  // CSS transforms such as a card's slight rotation).
  const mapBox = (m, x, y, w, h) => {
    const pts = [[x, y], [x + w, y], [x, y + h], [x + w, y + h]]
      .map(([px, py]) => [m.a * px + m.c * py + m.e, m.b * px + m.d * py + m.f]);
    const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
    const l = Math.min(...xs), t = Math.min(...ys);
    return [round(l + sx), round(t + sy), round(Math.max(...xs) - l), round(Math.max(...ys) - t)];
  };

  // The same box in its own SVG's unrotated frame (px from the SVG's corner, without the CSS
  // transforms of the card around it): two texts of one SVG, or a text and its panel's inset,
  // are compared there, where a card's slight rotation cannot inflate a long text's height.
  const localBox = (m, x, y, w, h) => {
    const pts = [[x, y], [x + w, y], [x, y + h], [x + w, y + h]]
      .map(([px, py]) => [m.a * px + m.c * py + m.e, m.b * px + m.d * py + m.f]);
    const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
    const l = Math.min(...xs), t = Math.min(...ys);
    return [round(l), round(t), round(Math.max(...xs) - l), round(Math.max(...ys) - t)];
  };
  const outerSvg = el => {
    let svg = el.closest('svg');
    while (svg && svg.parentElement && svg.parentElement.closest('svg')) {
      svg = svg.parentElement.closest('svg');
    }
    return svg;
  };

  const texts = [];
  for (const el of document.querySelectorAll('svg text')) {
    if (!visible(el) || !el.textContent.trim()) continue;
    let b;
    try { b = el.getBBox(); } catch (e) { continue; }
    const m = el.getScreenCTM();
    if (!m || (b.width === 0 && b.height === 0)) continue;
    const own = outerSvg(el);
    const lm = own === el.closest('svg') ? el.getCTM() : null;
    texts.push({id: ident(el), kind: 'svg', role: el.dataset.role || null,
                boxes: [mapBox(m, b.x, b.y, b.width, b.height)], owner: ident(el),
                svg: own ? ident(own) : null,
                local: lm ? localBox(lm, b.x, b.y, b.width, b.height) : null,
                alt: el.dataset.alt || null, floor: el.dataset.floor ? Number(el.dataset.floor) : null,
                text: el.textContent.trim().slice(0, 80), ...where(el)});
  }

  // HTML text: every visible text node, grouped by its nearest block-level ancestor (lines of
  // one paragraph never count as overlapping each other).
  const blockOf = el => {
    let cur = el;
    while (cur && cur !== document.body) {
      const d = getComputedStyle(cur).display;
      if (!d.startsWith('inline') && d !== 'contents') return cur;
      cur = cur.parentElement;
    }
    return document.body;
  };
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'TEXTAREA']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const htmlByOwner = new Map();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !node.textContent.trim() || skip.has(parent.tagName)) continue;
    if (parent.closest('svg') || !visible(parent)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const owner = blockOf(parent);
    const key = ident(owner);
    if (!htmlByOwner.has(key)) {
      htmlByOwner.set(key, {id: key, kind: 'html', role: null, boxes: [], owner: key,
                            alt: null, floor: null, text: '', ...where(owner)});
    }
    const entry = htmlByOwner.get(key);
    entry.boxes.push(...rects.map(rectBox));
    if (entry.text.length < 80) entry.text = (entry.text + ' ' + node.textContent.trim()).trim().slice(0, 80);
  }
  texts.push(...htmlByOwner.values());

  const panels = [];
  for (const svg of document.querySelectorAll('svg.panel')) {
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const m = svg.getScreenCTM();
    if (!vb || !m || !vb.width) continue;
    const inset = Number(svg.dataset.inset || 0);
    const lm = svg.getCTM();
    panels.push({id: ident(svg), ...where(svg), panel: svg.dataset.panel || svg.id,
                 box: rectBox(svg.getBoundingClientRect()),
                 inset: mapBox(m, vb.x + inset, vb.y + inset, vb.width - 2 * inset, vb.height - 2 * inset),
                 local_inset: lm ? localBox(lm, vb.x + inset, vb.y + inset, vb.width - 2 * inset,
                                            vb.height - 2 * inset) : null});
  }

  const cards = Array.from(document.querySelectorAll('article.card')).map(card => ({
    id: ident(card), card: card.dataset.card || card.id, box: rectBox(card.getBoundingClientRect())}));
  // The page's parts, top to bottom: with the cards they cut the page into the blocks the
  // review compares one by one.
  const sections = Array.from(document.querySelectorAll('[data-section]')).map(el => ({
    section: el.dataset.section, box: rectBox(el.getBoundingClientRect())}));

  const captions = Array.from(document.querySelectorAll('[data-role="caption"][data-limit]')).map(el => ({
    id: ident(el), text: el.textContent.trim(), limit: Number(el.dataset.limit),
    box: rectBox(el.getBoundingClientRect()), floor: el.dataset.floor ? Number(el.dataset.floor) : null,
    ...where(el)}));

  const bodies = Array.from(document.querySelectorAll('p.body')).map(el => ({
    id: ident(el), text: el.textContent.trim(), box: rectBox(el.getBoundingClientRect()), ...where(el)}));

  // Diagrams: every rendered SVG that is not purely decorative needs role="img" and a <title>.
  const diagrams = [];
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement && svg.parentElement.closest('svg')) continue;  // nested <svg>
    if (svg.getAttribute('aria-hidden') === 'true') continue;
    const r = svg.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;  // definitions only (filters, symbols)
    const title = Array.from(svg.children).find(c => c.tagName.toLowerCase() === 'title');
    const problems = [];
    if (!title || !title.textContent.trim()) problems.push('no <title>');
    if (svg.getAttribute('role') !== 'img') problems.push('no role="img"');
    if (!Array.from(svg.children).some(c => c.tagName.toLowerCase() === 'desc')) problems.push('no <desc>');
    if (problems.length) diagrams.push({id: ident(svg), box: rectBox(r), problems, ...where(svg)});
  }

  // Elements sticking out of the viewport horizontally; only the outermost offender is named,
  // and content inside a horizontal scroll container (a wide table in a scroller) is fine.
  const outside = [];
  const scrolls = el => {
    const o = getComputedStyle(el).overflowX;
    return o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip';
  };
  const visit = (el, clipped) => {
    for (const child of el.children) {
      if (child.tagName === 'SCRIPT' || child.tagName === 'STYLE') continue;
      const r = child.getBoundingClientRect();
      // Entirely left of the page (r.right <= 0) is the usual visually-hidden pattern (a skip
      // link at left:-9999px): it neither shows nor scrolls, so it is not an offender.
      const out = !clipped && r.width > 0 && r.height > 0 && r.right > 0 &&
        (r.right > vw + 1 || r.left < -1);
      if (out && visible(child)) {
        outside.push({id: ident(child), box: rectBox(r), ...where(child)});
        continue;
      }
      if (child.tagName.toLowerCase() !== 'svg') visit(child, clipped || scrolls(child));
    }
  };
  visit(document.body, false);

  // Font targets: each [data-font] element, and each SVG text set in a family by the
  // font-family attribute of its group; tag each so DevTools can find it by a plain selector.
  const intended = el => {
    if (el.dataset.font) return el.dataset.font;
    const group = el.closest('[font-family]');
    return group ? group.getAttribute('font-family') : null;
  };
  const fontTargets = [];
  document.querySelectorAll('[data-font], svg text').forEach((el, i) => {
    const font = intended(el);
    if (!font || !visible(el) || !el.textContent.trim()) return;
    el.setAttribute('data-tujie-probe', String(i));
    fontTargets.push({probe: String(i), id: ident(el), font,
                      box: rectBox(el.getBoundingClientRect()), ...where(el)});
  });

  return {
    viewport: {width: vw, height: window.innerHeight},
    scrollWidth: document.documentElement.scrollWidth,
    texts, panels, cards, sections, captions, bodies, diagrams, outside, fontTargets,
  };
}
