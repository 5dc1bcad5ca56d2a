// sassview export: hover or click a line of source, PTX or SASS to light its counterparts;
// click a finding to light its instructions; search all three panes. Inlined into the page.
// `?sv-selftest=ID` hovers the element ID once loaded and writes what lit up, as JSON, into a
// new element with the id sv-selftest-result (tests/test_export.py reads it from
// `chromium --dump-dom`);
// `&sv-search=TEXT` also types TEXT into the search box. It also writes where the panes lie
// in the window and how many SASS lines show a colour of their own without a hover.
(function () {
  "use strict";
  var data = document.getElementById("sv-links");
  var links = data ? JSON.parse(data.textContent) : {};
  var lit = [];
  var pinned = null;

  function clear() {
    lit.forEach(function (el) { el.classList.remove("sv-hl", "sv-cur"); });
    lit = [];
  }
  function light(id, cls) {
    var el = document.getElementById(id);
    if (el) { el.classList.add(cls); lit.push(el); }
    return el;
  }
  function counterparts(el) {
    if (!el.dataset.targets) return links[el.id] || [];
    var out = [];
    el.dataset.targets.split(" ").forEach(function (id) {
      if (!id) return;
      out.push(id);
      (links[id] || []).forEach(function (x) { out.push(x); });
    });
    return out;
  }
  function scrollWithin(el) {
    var box = el.closest(".sv-code");
    if (box) box.scrollTop = Math.max(0, el.offsetTop - box.clientHeight / 3);
    else el.scrollIntoView({ block: "center" });
  }
  function show(el, scroll) {
    clear();
    light(el.id, "sv-cur");
    var first = {};
    counterparts(el).forEach(function (id) {
      var t = light(id, "sv-hl");
      var box = t && t.closest(".sv-code");
      if (box && !first[box.id]) first[box.id] = t;
    });
    if (scroll) Object.keys(first).forEach(function (k) { scrollWithin(first[k]); });
  }
  function lineOf(node) {
    return node && node.closest ? node.closest(".ln, .sv-f") : null;
  }
  document.addEventListener("mouseover", function (ev) {
    if (pinned) return;
    var el = lineOf(ev.target);
    if (el) show(el, false);
  });
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest("a[href^='#']") : null;
    var el = a ? document.getElementById(a.getAttribute("href").slice(1)) : lineOf(ev.target);
    if (!el) return;
    if (a && !el.matches(".ln, .sv-f")) return;  // a link to a section: the browser's own jump
    if (a) ev.preventDefault();
    pinned = pinned === el ? null : el;
    show(el, true);
    if (a) scrollWithin(el);
  });

  var box = document.getElementById("sv-search");
  var count = document.getElementById("sv-count");
  var matches = [];
  var at = -1;
  function search(q) {
    matches.forEach(function (el) { el.classList.remove("sv-match"); });
    matches = [];
    at = -1;
    q = q.toLowerCase();
    if (q) {
      document.querySelectorAll(".ln").forEach(function (el) {
        if (el.textContent.toLowerCase().indexOf(q) >= 0) {
          el.classList.add("sv-match");
          matches.push(el);
        }
      });
    }
    count.textContent = q ? matches.length + " lines" : "";
  }
  if (box) {
    box.addEventListener("input", function () { search(box.value); });
    box.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter" || !matches.length) return;
      at = (at + 1) % matches.length;
      scrollWithin(matches[at]);
    });
  }

  var params = new URLSearchParams(window.location.search);
  var probe = params.get("sv-selftest");
  if (probe !== null) {
    if (params.get("sv-search") !== null && box) {
      box.value = params.get("sv-search");
      box.dispatchEvent(new Event("input"));
    }
    var target = document.getElementById(probe);
    if (target) target.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    var ids = function (sel) {
      return Array.prototype.map.call(document.querySelectorAll(sel), function (e) {
        return e.id;
      }).sort();
    };
    var plain = "#sv-sass .ln:not(.sv-hl):not(.sv-cur):not(.sv-match)";
    var layout = {
      viewport: window.innerHeight,
      panes: Array.prototype.map.call(document.querySelectorAll(".sv-code"), function (c) {
        var r = c.getBoundingClientRect();
        return { id: c.id, top: r.top, bottom: r.bottom, cut: c.scrollWidth > c.clientWidth };
      }),
      // Each finding marker's box against its pane's visible box (the client area: no
      // scrollbar, no border), unscrolled: a marker past the pane's edge is cut.
      markers: Array.prototype.map.call(document.querySelectorAll(".sv-code .fm"), function (m) {
        var pane = m.closest(".sv-code"), p = pane.getBoundingClientRect();
        var r = m.getBoundingClientRect(), left = p.left + pane.clientLeft;
        return { id: m.parentNode.id, left: r.left - left, right: r.right - left,
          width: pane.clientWidth };
      }),
      findings: document.querySelector(".sv-findings").getBoundingClientRect().top,
      sass: document.querySelectorAll(plain).length,
      tinted: Array.prototype.filter.call(document.querySelectorAll(plain), function (e) {
        return getComputedStyle(e).backgroundColor !== "rgba(0, 0, 0, 0)";
      }).length
    };
    var out = document.createElement("pre");
    out.id = "sv-selftest-result";
    out.textContent = JSON.stringify({
      found: !!target, current: ids(".sv-cur"), highlighted: ids(".sv-hl"),
      matches: matches.length, layout: layout
    });
    document.body.appendChild(out);
  }
})();
