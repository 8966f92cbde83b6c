// Filters by outcome and a search box; `#show=fail,error&q=text` in the URL sets both on load
// by clicking the filters, as a reader would.
(function () {
  var checks = Array.prototype.slice.call(document.querySelectorAll('article.check'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input.filter'));
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.value] = b.checked; });
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var n = 0;
    checks.forEach(function (c) {
      var text = c.getAttribute('data-search');
      var visible = on[c.getAttribute('data-outcome')] &&
        words.every(function (w) { return text.indexOf(w) >= 0; });
      c.hidden = !visible;
      if (visible) { n++; }
    });
    document.querySelectorAll('section.area').forEach(function (a) {
      a.hidden = !a.querySelector('article.check:not([hidden])');
    });
    shown.textContent = 'showing ' + n + ' of ' + checks.length;
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  var params = new URLSearchParams(location.hash.slice(1));
  if (params.has('show')) {
    var want = params.get('show').split(',');
    boxes.forEach(function (b) {
      if ((want.indexOf(b.value) >= 0) !== b.checked) { b.click(); }
    });
  }
  if (params.has('q')) { search.value = params.get('q'); }
  apply();
})();
