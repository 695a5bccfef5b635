// report: progressive enhancement only; the page works without it.
// Adds a button per series under each chart to show or hide that series.
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
})();
