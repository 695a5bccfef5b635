// A site of studies' index: filter by tag, sort, and search, whose index
// (search.json) is fetched the first time the search box is used.
(function () {
  const list = document.getElementById("studies");
  const box = document.getElementById("site-search");
  if (!list || !box) return;
  const controls = document.querySelector(".site-controls");
  const items = [...list.children];
  controls.hidden = false;
  for (const button of controls.querySelectorAll("button.tag")) {
    button.addEventListener("click", function () {
      for (const other of controls.querySelectorAll("button.tag")) other.setAttribute("aria-pressed", String(other === button));
      const tag = button.dataset.tag;
      for (const item of items) item.hidden = tag !== "" && !item.dataset.tags.split("|").includes(tag);
    });
  }
  document.getElementById("site-sort").addEventListener("change", function (event) {
    const by = event.target.value;
    const key = function (item) { return by === "title" ? item.dataset.title : item.dataset.date || (by === "new" ? "" : "~"); };
    items.sort(function (a, b) {
      const order = key(a).localeCompare(key(b)) || a.dataset.title.localeCompare(b.dataset.title);
      return by === "new" ? (key(a) === key(b) ? order : -order) : order;
    });
    for (const item of items) list.appendChild(item);
  });
  const results = document.getElementById("search-results");
  const status = document.getElementById("search-status");
  const plain = function (text) { return text.toLowerCase().replace(/\u2212/g, "-").replace(/[\u00a0\u2009\u202f]/g, " "); };
  let docs = null;
  const load = function () {
    if (!docs) docs = fetch(box.dataset.index).then(function (r) { return r.json(); });
    return docs;
  };
  const link = function (href, title, detail) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = href;
    a.textContent = title;
    li.appendChild(a);
    if (detail) li.appendChild(document.createTextNode(" " + detail));
    return li;
  };
  const search = function () {
    const terms = plain(box.value).split(/\s+/).filter(Boolean);
    results.replaceChildren();
    results.hidden = terms.length === 0;
    if (results.hidden) { status.textContent = ""; return; }
    load().then(function (all) {
      if (plain(box.value).split(/\s+/).filter(Boolean).join(" ") !== terms.join(" ")) return;
      const hits = [];
      const has = function (text) { const t = plain(text); return terms.every(function (term) { return t.includes(term); }); };
      for (const doc of all) {
        const claims = doc.c.filter(function (c) { return has(c[1] + " " + c[2] + " " + c[3] + " " + doc.t); });
        for (const c of claims) hits.push(link(doc.u + "#metric-" + c[0], c[1] + ": " + c[2], "(" + doc.t + ")"));
        if (!claims.length && has([doc.t, doc.a, doc.x].concat(doc.c.map(function (c) { return c.join(" "); })).join(" "))) hits.push(link(doc.u, doc.t, ""));
      }
      for (const hit of hits.slice(0, 20)) results.appendChild(hit);
      status.textContent = hits.length === 1 ? "1 result" : hits.length + " results";
      if (!hits.length) results.appendChild(document.createElement("li")).textContent = "Nothing found.";
    });
  };
  box.addEventListener("focus", load, { once: true });
  box.addEventListener("input", search);
  box.addEventListener("keydown", function (event) {
    const first = results.querySelector("a");
    if (event.key === "ArrowDown" && first) { event.preventDefault(); first.focus(); }
    if (event.key === "Escape") { box.value = ""; search(); }
  });
  results.addEventListener("keydown", function (event) {
    const links = [...results.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && at < links.length - 1) { event.preventDefault(); links[at + 1].focus(); }
    if (event.key === "ArrowUp") { event.preventDefault(); (at > 0 ? links[at - 1] : box).focus(); }
    if (event.key === "Escape") { box.focus(); }
  });
})();
