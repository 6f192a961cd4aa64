/* Runs in <head> before first paint: pick the page language. Order: the URL's ?lang=, the
   reader's stored choice (localStorage["report-lang"]), the round's stated language
   (build --lang, else round.toml default_language), the browser's languages, and last the
   build's fallback. */
(function () {
  var d = document.documentElement, l = null;
  function ok(x) { return x === 'zh' || x === 'en'; }
  try { var q = new URLSearchParams(location.search).get('lang'); if (ok(q)) l = q; } catch (e) {}
  if (!l) { try { var s = localStorage.getItem('report-lang'); if (ok(s)) l = s; } catch (e) {} }
  if (!l && ok(d.getAttribute('data-default-lang'))) l = d.getAttribute('data-default-lang');
  if (!l) {
    var n = navigator.languages || [navigator.language || ''];
    for (var i = 0; i < n.length && !l; i++) {
      var x = String(n[i] || '').toLowerCase();
      if (x.indexOf('zh') === 0) l = 'zh'; else if (x.indexOf('en') === 0) l = 'en';
    }
  }
  if (!l) l = ok(d.getAttribute('data-fallback-lang')) ? d.getAttribute('data-fallback-lang') : 'zh';
  d.classList.add('js');   // scripts run: hide the "needs JavaScript" notes
  d.setAttribute('data-lang', l);
  d.lang = l === 'zh' ? 'zh-CN' : 'en';
  var t = document.querySelector('title');
  if (t && t.getAttribute('data-' + l)) document.title = t.getAttribute('data-' + l);
})();
