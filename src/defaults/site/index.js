// A site of studies' index: filter by tag and sort. The search's own
// script (search.HASH.js, which fetches search.json) is loaded the first
// time the search box is used, so that a reader who never searches loads
// neither.
(function () {
  const list = document.getElementById("studies");
  const box = document.getElementById("site-search");
  if (!list || !box) return;
  const controls = document.querySelector(".site-controls");
  const items = [...list.children];
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
  const start = function () {
    if (document.querySelector("script[data-search]")) return;
    const script = document.createElement("script");
    script.src = box.dataset.script;
    script.dataset.search = "";
    document.head.appendChild(script);
  };
  box.addEventListener("focus", start, { once: true });
  box.addEventListener("input", start, { once: true });
})();
