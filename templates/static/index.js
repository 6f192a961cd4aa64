/* The index's cards: a filter by GPU, configuration and date, and pages of cards (newest
   first, as the page lists them). Without this script every card shows. Offline, no storage. */
(function () {
  'use strict';
  var form = document.getElementById('round-filter');
  var box = document.getElementById('round-cards');
  var pager = document.getElementById('round-pager');
  var none = document.getElementById('round-none');
  if (!form || !box || !pager) return;
  var cards = Array.prototype.slice.call(box.querySelectorAll('.round-card'));
  var size = parseInt(form.getAttribute('data-page-size'), 10) || 24;
  var page = 0;

  function value(name) {
    var el = form.elements[name];
    return el ? el.value : '';
  }

  function matches(card) {
    var gpu = value('gpu'), config = value('config'), from = value('from'), to = value('to');
    var date = card.getAttribute('data-date') || '';
    if (gpu && card.getAttribute('data-gpu') !== gpu) return false;
    if (config && (card.getAttribute('data-configs') || '').split('\n').indexOf(config) < 0) {
      return false;
    }
    if ((from || to) && !date) return false;
    if (from && date < from) return false;
    if (to && date > to) return false;
    return true;
  }

  function show() {
    var hits = cards.filter(matches);
    var pages = Math.max(1, Math.ceil(hits.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    var first = page * size, shown = hits.slice(first, first + size);
    cards.forEach(function (c) { c.hidden = shown.indexOf(c) < 0; });
    none.hidden = hits.length > 0;
    pager.hidden = pages < 2;
    pager.querySelector('.round-pager-pos').textContent = (page + 1) + ' / ' + pages;
    pager.querySelector('[data-step="-1"]').disabled = page === 0;
    pager.querySelector('[data-step="1"]').disabled = page === pages - 1;
  }

  function relabel() {
    var l = document.documentElement.getAttribute('data-lang') === 'en' ? 'en' : 'zh';
    form.querySelectorAll('option[data-' + l + ']').forEach(function (o) {
      o.textContent = o.getAttribute('data-' + l);
    });
  }

  form.addEventListener('change', function () { page = 0; show(); });
  form.addEventListener('input', function () { page = 0; show(); });
  form.addEventListener('reset', function () { setTimeout(function () { page = 0; show(); }); });
  form.addEventListener('submit', function (ev) { ev.preventDefault(); });
  pager.addEventListener('click', function (ev) {
    var step = ev.target.closest('[data-step]');
    if (!step) return;
    page += parseInt(step.getAttribute('data-step'), 10);
    show();
    box.scrollIntoView({ block: 'start' });
  });
  new MutationObserver(relabel).observe(document.documentElement,
                                        { attributes: true, attributeFilter: ['data-lang'] });
  form.hidden = false;
  relabel();
  show();
})();
