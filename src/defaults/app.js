// report: progressive enhancement only; the page works without it.
// Adds a button per series under each chart to show or hide that series (one
// stays shown), and shows a point's details (its SVG <title>) at once on
// hover or tap, where native tooltips are slow or never appear.
(function () {
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
    const show = function (event) {
      const point = event.target.closest(".points circle");
      if (!point) return;
      const box = point.getBoundingClientRect();
      const home = figure.getBoundingClientRect();
      tip.textContent = point.querySelector("title").textContent;
      tip.hidden = false;
      const left = Math.min(box.left - home.left, home.width - tip.offsetWidth - 8);
      tip.style.left = Math.max(8, left) + "px";
      tip.style.top = (box.top - home.top - tip.offsetHeight - 6) + "px";
    };
    figure.addEventListener("pointerover", show);
    figure.addEventListener("click", show);
    figure.addEventListener("pointerout", function (event) {
      if (event.target.closest(".points circle")) tip.hidden = true;
    });
  }
})();
