// A site of studies' search, loaded by the index's script the first time
// the search box is used: fetches the index (search.json) and shows the
// studies and claims that hold every word of the query; the arrow keys
// move through the results and Escape clears the box.
(function () {
  const box = document.getElementById("site-search");
  if (!box) return;
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
  load();
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
  // What was typed before this script arrived.
  if (box.value) search();
})();
