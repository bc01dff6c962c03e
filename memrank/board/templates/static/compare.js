// memrank board: the compare-two picker of an evaluation page. It reads the page's small
// compare.json (every ranked system's mean and interval, and every two systems' difference and
// p value, computed at build time) and says what the pair reads. Text only, via textContent.
(() => {
  "use strict";

  const form = document.getElementById("compare");
  const out = document.getElementById("compare-reading");
  const fallback = document.getElementById("compare-fallback");
  if (!form || !out) {
    return;
  }

  const number = (x) => (x === null ? "none" : x.toFixed(3));
  const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
  const interval = (run) =>
    run.low === null ? "no interval" : `95% interval ${number(run.low)} to ${number(run.high)}`;

  function read(data) {
    const a = Number(form.elements.a.value);
    const b = Number(form.elements.b.value);
    const first = data.runs[a];
    const second = data.runs[b];
    if (a === b) {
      out.textContent = "Pick two different systems.";
      return;
    }
    const difference = data.difference[a][b];
    const p = data.p[a][b];
    const higher = data.direction === "higher";
    let verdict = "the paired test does not separate them (a tie)";
    if (p !== null && p < data.level && difference !== 0) {
      const secondBetter = difference > 0 === higher;
      verdict = `${secondBetter ? second.name : first.name} is significantly better`;
    }
    out.textContent =
      `${first.name}: ${number(first.mean)} (${interval(first)}, rank ${first.rank}). ` +
      `${second.name}: ${number(second.mean)} (${interval(second)}, rank ${second.rank}). ` +
      `Difference, second minus first, over the tasks both decided: ${signed(difference)}; ` +
      (p === null ? "no test possible." : `p ${p < 0.001 ? "< 0.001" : "= " + p.toFixed(3)}: ${verdict} at the ${data.level * 100}% level.`);
  }

  fetch(form.dataset.source)
    .then((response) => {
      if (!response.ok) {
        throw new Error(`compare data: HTTP ${response.status}`);
      }
      return response.json();
    })
    .then((data) => {
      const update = () => read(data);
      form.addEventListener("change", update);
      form.addEventListener("submit", (event) => event.preventDefault());
      form.hidden = false;
      if (fallback) {
        fallback.hidden = true;
      }
      update();
    })
    .catch(() => {
      out.textContent = "The comparison data could not be loaded; each run page has the same comparisons.";
    });
})();
