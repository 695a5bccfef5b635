// report: progressive enhancement only; the page works without it.
// Adds a button per series under each chart to show or hide that series (one
// stays shown), and shows details at once, where native tooltips are slow or
// never appear: under the pointer or a tap, every shown series' point at the
// x nearest it (so a point under another is reached too); on keyboard
// focus, the focused point's (its SVG <title>). Keyboard: Tab reaches a chart's first shown point (one tab stop per
// chart, a roving tabindex); the arrow keys move to the next or previous
// point (series by series, each in x order), Home and End to the first and
// last; Escape hides the details. Computed tables sort by any column.
(function () {
  // The table of contents starts collapsed on a phone, open elsewhere.
  const toc = document.querySelector(".toc details");
  if (toc && window.matchMedia("(max-width: 40rem)").matches) toc.open = false;
  // On a phone the study's facts fold into one line; a button unfolds them.
  const facts = document.querySelector("header .facts");
  if (facts && window.matchMedia("(max-width: 40rem)").matches) {
    facts.classList.add("folded");
    if (facts.scrollWidth > facts.clientWidth + 1) {
      const more = document.createElement("button");
      more.type = "button";
      more.className = "facts-more";
      more.textContent = "All facts";
      more.setAttribute("aria-expanded", "false");
      more.addEventListener("click", function () {
        const open = facts.classList.toggle("folded") === false;
        more.setAttribute("aria-expanded", String(open));
        more.textContent = open ? "Fewer facts" : "All facts";
      });
      facts.after(more);
    }
  }
  for (const figure of document.querySelectorAll(".chart[data-series]")) {
    const series = JSON.parse(figure.dataset.series);
    const bar = document.createElement("div");
    bar.className = "series-toggle";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "Show or hide series");
    series.forEach(function (entry) {
      const style = entry[0];
      const name = entry[1];
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = name;
      button.setAttribute("aria-pressed", "true");
      button.addEventListener("click", function () {
        const shown = button.getAttribute("aria-pressed") === "true";
        if (shown && bar.querySelectorAll("[aria-pressed=true]").length === 1) return;
        button.setAttribute("aria-pressed", String(!shown));
        for (const el of figure.querySelectorAll("svg .s" + style)) {
          el.style.display = shown ? "none" : "";
        }
      });
      bar.appendChild(button);
    });
    const svg = figure.querySelector("svg");
    if (svg && series.length > 1) {
      svg.after(bar);
    }
  }
  for (const figure of document.querySelectorAll("div.chart")) {
    const tip = document.createElement("div");
    tip.className = "tooltip";
    tip.setAttribute("role", "status");
    tip.hidden = true;
    figure.appendChild(tip);
    const points = [...figure.querySelectorAll("svg .points circle")];
    const shown = function () { return points.filter(function (p) { return p.style.display !== "none"; }); };
    // The details of `point`, or with `all`, of every shown series at its x
    // (one line each): what a pointer reads, even where points overlap.
    const place = function (point, all) {
      const x = point.getAttribute("cx");
      const column = all ? shown().filter(function (p) { return p.getAttribute("cx") === x; }) : [point];
      const box = point.getBoundingClientRect();
      const home = figure.getBoundingClientRect();
      tip.textContent = column.map(function (p) { return p.querySelector("title").textContent; }).join("\n");
      tip.hidden = false;
      const left = Math.min(box.left - home.left, home.width - tip.offsetWidth - 8);
      tip.style.left = Math.max(8, left) + "px";
      tip.style.top = (box.top - home.top - tip.offsetHeight - 6) + "px";
    };
    // The shown point nearest the pointer across, within 24 px: every point
    // is reachable, a hidden one through the one above it.
    const nearest = function (event) {
      let best = null;
      let distance = 24;
      for (const p of shown()) {
        const box = p.getBoundingClientRect();
        const d = Math.abs(box.left + box.width / 2 - event.clientX);
        if (d < distance && event.clientY >= box.top - 200 && event.clientY <= box.bottom + 200) { best = p; distance = d; }
      }
      return best;
    };
    const svg = figure.querySelector("svg");
    if (svg) {
      svg.addEventListener("pointermove", function (event) {
        if (figure.contains(document.activeElement) && document.activeElement.closest(".points")) return;
        const point = nearest(event);
        if (point) place(point, true); else tip.hidden = true;
      });
      svg.addEventListener("pointerleave", function () {
        if (!(figure.contains(document.activeElement) && document.activeElement.closest(".points"))) tip.hidden = true;
      });
    }
    const show = function (event) {
      const point = event.target.closest(".points circle");
      if (point) place(point, event.type !== "focusin");
    };
    figure.addEventListener("click", show);
    figure.addEventListener("focusin", show);
    figure.addEventListener("focusout", function (event) {
      if (event.target.closest(".points circle")) tip.hidden = true;
    });
    points.forEach(function (point, i) { point.setAttribute("tabindex", i === 0 ? "0" : "-1"); });
    figure.addEventListener("keydown", function (event) {
      const point = event.target.closest(".points circle");
      if (!point) return;
      if (event.key === "Escape") { tip.hidden = true; return; }
      const list = shown();
      const at = list.indexOf(point);
      const moves = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: list.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      const next = list[Math.max(0, Math.min(list.length - 1, moves[event.key]))];
      if (!next || next === point) return;
      point.setAttribute("tabindex", "-1");
      next.setAttribute("tabindex", "0");
      next.focus();
    });
    // A series hidden by its button takes its points out of the tab order.
    figure.addEventListener("click", function (event) {
      if (!event.target.closest(".series-toggle")) return;
      const list = shown();
      if (list.some(function (p) { return p.getAttribute("tabindex") === "0"; })) return;
      points.forEach(function (p) { p.setAttribute("tabindex", "-1"); });
      if (list[0]) list[0].setAttribute("tabindex", "0");
    });
  }
  // A computed table (its cells classed by verdict or as cells) sorts by
  // any column: its header holds a button, and aria-sort says the order.
  // Numbers sort by value (a minus sign as U+2212, thousands apart), cells
  // without one (the baseline, no runs) last; the first column by its text.
  // Without the script the table reads in the author's order.
  const number = function (cell) {
    const text = cell.textContent.replace(/\u2212/g, "-").replace(/(\d)[,\s\u00a0\u2009\u202f](?=\d{3})/g, "$1");
    const match = text.match(/[-+]?\d+(\.\d+)?(e[-+]?\d+)?/i);
    return match ? parseFloat(match[0]) : null;
  };
  for (const table of document.querySelectorAll("figure.table table")) {
    const head = table.tHead && table.tHead.rows[0];
    const body = table.tBodies[0];
    if (!head || !body || !table.querySelector("td.cell, td.verdict")) continue;
    const authored = [...body.rows];
    [...head.cells].forEach(function (th, column) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        for (const other of head.cells) other.removeAttribute("aria-sort");
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const key = function (row) {
          const cell = row.cells[column];
          return { text: cell ? cell.textContent.trim() : "", value: cell && column > 0 ? number(cell) : null };
        };
        const rows = authored.map(function (row) { return [key(row), row]; });
        rows.sort(function (a, b) {
          const x = a[0];
          const y = b[0];
          if ((x.value === null) !== (y.value === null)) return x.value === null ? 1 : -1;
          const order = x.value !== null ? x.value - y.value : x.text.localeCompare(y.text, undefined, { numeric: true });
          return ascending ? order : -order;
        });
        for (const entry of rows) body.appendChild(entry[1]);
      });
    });
  }
  // A table wider than its box (its sort buttons in) says so under it,
  // beside the shadow at its edge.
  for (const box of document.querySelectorAll("figure.table > .table-scroll")) {
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    const cue = document.createElement("p");
    cue.className = "scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    cue.textContent = "Scroll sideways for more \u2192";
    box.after(cue);
  }
})();
// Share a view: a "Copy link" button on every figure, table and card (its
// anchor), and the series hidden and a table's order kept in the address
// (?hide-fig-ID=1.3&sort-tbl-ID=2d), restored from it on load.
(function () {
  const state = new URLSearchParams(location.search);
  const save = function () {
    const query = state.toString();
    history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
  };
  const set = function (key, value) { if (value) state.set(key, value); else state.delete(key); save(); };
  const anchor = function (el) { const home = el.closest("[id]"); return home ? home.id : ""; };
  document.addEventListener("click", function (event) {
    const toggle = event.target.closest(".series-toggle button");
    const sort = event.target.closest("th > button.sort");
    if (toggle) {
      const buttons = [...toggle.parentNode.children];
      const hidden = buttons.map(function (b, i) { return b.getAttribute("aria-pressed") === "false" ? i : -1; });
      set("hide-" + anchor(toggle), hidden.filter(function (i) { return i >= 0; }).join("."));
    } else if (sort) {
      const th = sort.parentNode;
      const order = th.getAttribute("aria-sort");
      set("sort-" + anchor(th), order ? th.cellIndex + order[0] : "");
    }
  });
  state.forEach(function (value, key) {
    const home = document.getElementById(key.replace(/^(hide|sort)-/, ""));
    if (!home) return;
    if (key.startsWith("hide-")) {
      const buttons = home.querySelectorAll(".series-toggle button");
      value.split(".").forEach(function (i) { if (buttons[i]) buttons[i].click(); });
    } else {
      const th = home.querySelector("thead tr").cells[parseInt(value, 10)];
      const button = th && th.querySelector("button.sort");
      for (let n = value.endsWith("d") ? 2 : 1; button && n > 0; n--) button.click();
    }
  });
  const targets = document.querySelectorAll(".chart[id] figcaption, figure.table figcaption, .card[id]");
  for (const place of targets) {
    const id = anchor(place);
    if (!id) continue;
    const name = place.querySelector(".figure-number, .table-number, .label");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy-link";
    button.textContent = "Copy link";
    button.setAttribute("aria-label", "Copy link to " + (name ? name.textContent.replace(/\.$/, "") : "this"));
    button.addEventListener("click", function () {
      const link = location.href.split("#")[0] + "#" + id;
      const said = function (text) { button.textContent = text; setTimeout(function () { button.textContent = "Copy link"; }, 2000); };
      const copied = navigator.clipboard ? navigator.clipboard.writeText(link) : Promise.reject();
      copied.then(function () { said("Link copied"); }, function () { history.replaceState(null, "", link); said("Link in the address bar"); });
    });
    place.appendChild(button);
  }
})();
