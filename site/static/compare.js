// memrank board: the compare-two picker of an evaluation page. It reads the page's small
// compare.json (every ranked system's mean and interval) and, for a pair, the file of the
// better-placed system's pairs (difference and p value, computed at build time), and says
// what the pair reads. Text only, via textContent.
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

  // pairs/<f>.json holds the runs k from pairs_from[f] up to the next file's first, each
  // against every later run; each file is fetched once, when asked for.
  const files = new Map();
  function pairsOf(data, base, k) {
    let file = 0;
    while (file + 1 < data.pairs_from.length && data.pairs_from[file + 1] <= k) {
      file += 1;
    }
    if (!files.has(file)) {
      files.set(
        file,
        fetch(new URL(`${data.pairs}/${file}.json`, base)).then((response) => {
          if (!response.ok) {
            throw new Error(`compare data: HTTP ${response.status}`);
          }
          return response.json();
        }),
      );
    }
    return files.get(file).then((held) => ({
      difference: held.difference[k - held.first],
      p: held.p[k - held.first],
    }));
  }

  function read(data, base) {
    const a = Number(form.elements.a.value);
    const b = Number(form.elements.b.value);
    const first = data.runs[a];
    const second = data.runs[b];
    if (a === b) {
      out.textContent = "Pick two different systems.";
      return;
    }
    const low = Math.min(a, b);
    pairsOf(data, base, low)
      .then((row) => {
        // run low's difference is the later run minus run ``low``: second minus first here
        const forward = row.difference[Math.max(a, b) - low - 1];
        const difference = a === low ? forward : -forward;
        const p = row.p[Math.max(a, b) - low - 1];
        say(data, first, second, difference, p);
      })
      .catch(() => {
        out.textContent = "The comparison data could not be loaded; each run page has the same comparisons.";
      });
  }

  function say(data, first, second, difference, p) {
    const higher = data.direction === "higher";
    // two versions of one system are told apart by their versions
    const [one, other] = first.name === second.name
      ? [`${first.name} ${first.version}`, `${second.name} ${second.version}`]
      : [first.name, second.name];
    let verdict = "the paired test does not separate them (a tie)";
    if (p !== null && p < data.level && difference !== 0) {
      const secondBetter = difference > 0 === higher;
      verdict = `${secondBetter ? other : one} is significantly better`;
    }
    out.textContent =
      `${one}: ${number(first.mean)} (${interval(first)}, rank ${first.rank}). ` +
      `${other}: ${number(second.mean)} (${interval(second)}, rank ${second.rank}). ` +
      `Difference, second minus first, over the tasks both decided: ${signed(difference)}; ` +
      (p === null ? "no test possible." : `p ${p < 0.001 ? "< 0.001" : "= " + p.toFixed(3)}: ${verdict} at the ${data.level * 100}% level.`);
  }

  fetch(form.dataset.source)
    .then((response) => {
      if (!response.ok) {
        throw new Error(`compare data: HTTP ${response.status}`);
      }
      return response.json().then((data) => [data, response.url]);
    })
    .then(([data, base]) => {
      const update = () => read(data, base);
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
