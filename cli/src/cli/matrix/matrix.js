// The matrix page's folding and filters. Without this script every row shows, unfolded.
//
// Hooks: each area is a `tbody.area` (`data-open` 1/0); each requirement a `tr.req`
// (`data-level` must/should/other, `data-states` the states of its cells, `data-open` 1/0)
// followed by its `tr.chk` rows (`data-level`, `data-states`); the filters are the checkboxes
// `input.f-req`, `input.f-check` and `input.f-level`. A row shows when its level is ticked and one
// of its states is (a row without any state shows only while all of its group is ticked); a
// check row also needs its requirement shown and unfolded. `#show=not_met,fail&level=must&open=1`
// in the URL ticks those (per group named) and unfolds every requirement. `#shown` counts the
// requirements shown; the body gets data-ready=1 once the script has run.
(function () {
  function all(selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  }
  var groups = { req: all('input.f-req'), check: all('input.f-check'), level: all('input.f-level') };
  var areas = all('tbody.area');
  var shown = document.getElementById('shown');

  function ticked(boxes) {
    var on = { all: boxes.every(function (b) { return b.checked; }) };
    boxes.forEach(function (b) { on[b.value] = b.checked; });
    return on;
  }
  function matches(states, on) {
    var list = (states || '').split(' ').filter(Boolean);
    if (list.length === 0) { return on.all; }
    return list.some(function (s) { return on[s]; });
  }
  // Folds or unfolds an area (its head row's toggle) or a requirement row.
  function setOpen(el, open) {
    el.setAttribute('data-open', open ? '1' : '0');
    var tog = el.querySelector('.tog');
    if (tog) {
      tog.setAttribute('aria-expanded', open ? 'true' : 'false');
      tog.textContent = open ? '▾' : '▸';
    }
  }

  function apply() {
    var req = ticked(groups.req), check = ticked(groups.check), level = ticked(groups.level);
    var n = 0, total = 0;
    areas.forEach(function (area) {
      var areaOpen = area.getAttribute('data-open') === '1';
      var inArea = 0, reqShown = false, reqOpen = false;
      all('tr', area).forEach(function (tr) {
        if (tr.classList.contains('req')) {
          total++;
          reqShown = level[tr.getAttribute('data-level')] && matches(tr.getAttribute('data-states'), req);
          reqOpen = tr.getAttribute('data-open') === '1';
          if (reqShown) { inArea++; }
          tr.hidden = !(reqShown && areaOpen);
        } else if (tr.classList.contains('chk')) {
          tr.hidden = !(reqShown && reqOpen && areaOpen && level[tr.getAttribute('data-level')] &&
            matches(tr.getAttribute('data-states'), check));
        }
      });
      n += inArea;
      area.hidden = inArea === 0;
    });
    all('section.role').forEach(function (s) {
      s.hidden = !s.querySelector('tbody.area:not([hidden])');
    });
    shown.textContent = 'showing ' + n + ' of ' + total + ' requirements';
  }

  areas.forEach(function (area) {
    var head = area.querySelector('tr.area-head');
    head.querySelector('.tog').addEventListener('click', function () {
      setOpen(area, area.getAttribute('data-open') !== '1');
      apply();
    });
    all('tr.req', area).forEach(function (tr) {
      tr.querySelector('.tog').addEventListener('click', function () {
        setOpen(tr, tr.getAttribute('data-open') !== '1');
        apply();
      });
    });
  });
  function every(open) {
    areas.forEach(function (area) {
      setOpen(area, true);
      all('tr.req', area).forEach(function (tr) { setOpen(tr, open); });
    });
    apply();
  }
  document.getElementById('expand-all').addEventListener('click', function () { every(true); });
  document.getElementById('collapse-all').addEventListener('click', function () { every(false); });
  Object.keys(groups).forEach(function (g) {
    groups[g].forEach(function (b) { b.addEventListener('change', apply); });
  });

  var params = new URLSearchParams(location.hash.slice(1));
  function want(boxes, names) {
    if (!boxes.some(function (b) { return names.indexOf(b.value) >= 0; })) { return; }
    boxes.forEach(function (b) { b.checked = names.indexOf(b.value) >= 0; });
  }
  if (params.has('show')) {
    var show = params.get('show').split(',');
    want(groups.req, show);
    want(groups.check, show);
  }
  if (params.has('level')) { want(groups.level, params.get('level').split(',')); }
  every(params.get('open') === '1');
  document.body.setAttribute('data-ready', '1');
})();
