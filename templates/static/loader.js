/* Unpack the inlined plotly.js: base64 → gzip → DecompressionStream → one inline script element.
   Needs no network and no eval; under the page's CSP the script is allowed by its sha256. */
window.PlotlyReady = (async function () {
  if (typeof DecompressionStream === 'undefined') {
    var err = new Error('DecompressionStream is not supported by this browser');
    err.code = 'no-decompression-stream';
    throw err;
  }
  var b64 = document.getElementById('plotly-gz').textContent.trim(), bytes;
  if (Uint8Array.fromBase64) {
    bytes = Uint8Array.fromBase64(b64);
  } else {
    var bin = atob(b64);
    bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  }
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  var js = await new Response(stream).text();
  var s = document.createElement('script');
  s.text = js;
  document.head.appendChild(s);
  if (!window.Plotly) throw new Error('plotly.js failed to load');
  return window.Plotly;
})();
// Handled in app.js; this keeps the browser from reporting an unhandled rejection first.
window.PlotlyReady.catch(function () {});
