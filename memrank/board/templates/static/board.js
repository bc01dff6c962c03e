// memrank board: sorting, filtering and a live count for a track's table, state kept in the URL.
// Progressive enhancement only: without this script the page already shows the whole table.
// It builds no markup from strings; text reaches the page through textContent alone.
(() => {
  "use strict";

  const table = document.getElementById("board");
  const form = document.getElementById("filters");
  const showing = document.getElementById("showing");
  if (!table || !form || !showing) {
    return;
  }

  const FIELDS = ["division", "evidence", "evaluation", "q"];
  const headers = Array.from(table.tHead.rows[0].cells);
  // The systems' rows, then the control arms' under their heading: each group sorts within
  // itself, so the controls stay apart whatever the order.
  const groups = Array.from(table.tBodies).map((body) => ({
    body,
    heading: body.querySelector("tr.group-heading"),
    rows: Array.from(body.rows).filter((row) => !row.classList.contains("group-heading")),
  }));
  const rows = groups.flatMap((group) => group.rows);
  const original = new Map(rows.map((row, position) => [row, position]));
  const byRank = { column: 0, direction: "ascending" };
  let sorted = { ...byRank };

  const cellValue = (row, column) => row.cells[column].dataset.value;

  function compare(column, direction) {
    const numeric = headers[column].dataset.type === "number";
    const sign = direction === "ascending" ? 1 : -1;
    return (a, b) => {
      const x = cellValue(a, column);
      const y = cellValue(b, column);
      // Rows without a value (no run, or a value that could not be decided) always go last.
      if (x === "" || y === "") {
        return (x === "") - (y === "") || original.get(a) - original.get(b);
      }
      const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return sign * order || original.get(a) - original.get(b);
    };
  }

  function sortBy(column, direction) {
    sorted = { column, direction };
    headers.forEach((header, index) => {
      if (index === column) {
        header.setAttribute("aria-sort", direction);
      } else {
        header.removeAttribute("aria-sort");
      }
    });
    groups.forEach((group) =>
      group.rows
        .slice()
        .sort(compare(column, direction))
        .forEach((row) => group.body.appendChild(row)),
    );
  }

  function filter() {
    const division = form.elements.division.value;
    const evidence = form.elements.evidence.value;
    const evaluation = form.elements.evaluation.value;
    const query = form.elements.q.value.trim().toLowerCase();
    let shown = 0;
    rows.forEach((row) => {
      const visible =
        (!division || row.dataset.division === division) &&
        (!evidence || row.dataset.evidence === evidence) &&
        (!evaluation || row.dataset.evaluations.split(" ").includes(evaluation)) &&
        (!query || row.cells[1].textContent.toLowerCase().includes(query));
      row.hidden = !visible;
      shown += visible ? 1 : 0;
    });
    groups.forEach((group) => {
      if (group.heading) {
        group.heading.hidden = group.rows.every((row) => row.hidden);
      }
    });
    const noun = rows.length === 1 ? "system" : "systems";
    showing.textContent = `Showing ${shown} of ${rows.length} ${noun}`;
  }

  function save() {
    const params = new URLSearchParams();
    FIELDS.forEach((name) => {
      const value = form.elements[name].value.trim();
      if (value) {
        params.set(name, value);
      }
    });
    if (sorted.column !== byRank.column || sorted.direction !== byRank.direction) {
      params.set("sort", headers[sorted.column].dataset.key);
      params.set("order", sorted.direction === "ascending" ? "asc" : "desc");
    }
    const query = params.toString();
    history.replaceState(null, "", (query ? `?${query}` : location.pathname) + location.hash);
  }

  function restore() {
    const params = new URLSearchParams(location.search);
    FIELDS.forEach((name) => {
      const field = form.elements[name];
      const wanted = params.get(name);
      if (wanted === null) {
        return;
      }
      if (field.tagName !== "SELECT" || Array.from(field.options).some((o) => o.value === wanted)) {
        field.value = wanted;
      }
    });
    const column = headers.findIndex((header) => header.dataset.key === params.get("sort"));
    if (column >= 0) {
      sortBy(column, params.get("order") === "asc" ? "ascending" : "descending");
    }
  }

  headers.forEach((header, column) => {
    const button = document.createElement("button");
    button.type = "button";
    while (header.firstChild) {
      button.appendChild(header.firstChild);
    }
    header.appendChild(button);
    button.addEventListener("click", () => {
      const flipped = sorted.direction === "ascending" ? "descending" : "ascending";
      sortBy(column, sorted.column === column ? flipped : header.dataset.first);
      save();
    });
  });

  const update = () => {
    filter();
    save();
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", (event) => event.preventDefault());
  // Clearing goes back to the table as built: no filter, ranked order.
  form.addEventListener("reset", () =>
    setTimeout(() => {
      sortBy(byRank.column, byRank.direction);
      update();
    }),
  );

  form.hidden = false;
  restore();
  filter();
})();
