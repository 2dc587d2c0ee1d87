/* The review page's script: the before/after sliders, the diff overlay toggles, j/k to the
   next/previous change, and the full pages loaded only when opened. Inlined and allowed by hash. */
(() => {
  for (const slider of document.querySelectorAll('[data-slider]')) {
    const box = slider.closest('.compare').querySelector('[data-swipe]');
    const show = () => {
      box.querySelector('.over').style.clipPath = `inset(0 0 0 ${slider.value}%)`;
      box.querySelector('.split').style.left = `${slider.value}%`;
    };
    slider.addEventListener('input', show);
    show();
  }
  for (const toggle of document.querySelectorAll('[data-overlay]')) {
    const overlay = toggle.closest('.compare').querySelector('[data-swipe] .overlay');
    const show = () => { overlay.hidden = !toggle.checked; };
    toggle.addEventListener('change', show);
    show();
  }
  const changes = Array.from(document.querySelectorAll('[data-change]'));
  const top = el => el.getBoundingClientRect().top + window.scrollY;
  const go = step => {
    if (!changes.length) return;
    const y = window.scrollY;
    const target = step > 0
      ? changes.find(c => top(c) > y + 8) || changes[changes.length - 1]
      : changes.filter(c => top(c) < y - 8).pop() || changes[0];
    target.scrollIntoView({block: 'start'});
    target.focus({preventScroll: true});
  };
  document.addEventListener('keydown', e => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'j') go(1);
    else if (e.key === 'k') go(-1);
  });
  const place = (img, outlines) => {
    for (const o of outlines) {
      o.style.top = `${100 * Number(o.dataset.top) / img.naturalHeight}%`;
      o.style.height = `${100 * Number(o.dataset.height) / img.naturalHeight}%`;
    }
  };
  for (const full of document.querySelectorAll('[data-full]')) {
    full.addEventListener('toggle', () => {
      if (!full.open) return;
      for (const img of full.querySelectorAll('img[data-src]')) {
        const outlines = img.parentElement.querySelectorAll('.outline');
        img.addEventListener('load', () => place(img, outlines), {once: true});
        img.src = img.dataset.src;
        img.removeAttribute('data-src');
      }
    });
  }
})();
