// page.js: how the page is opened, from the query string (the hash holds the
// inputs). Untrusted like the hash: anything unexpected falls back to the
// default.
//   ?embed=1    compact layout for an iframe: no header, footer, share panel
//               or search; a link opens the full page with the same inputs
//   ?lock=1     with embed: the inputs are read-only
//   ?workers=N  web workers a search is split over (1 to maxWorkers)

/** @returns {{embed: boolean, locked: boolean, workers: number}} */
export function pageOptions(query, defaultWorkers, maxWorkers) {
  const params = new URLSearchParams(query);
  const embed = params.get('embed') === '1';
  const asked = Number(params.get('workers'));
  return {
    embed,
    locked: embed && params.get('lock') === '1',
    workers: Number.isInteger(asked) && asked >= 1 && asked <= maxWorkers ? asked : defaultWorkers,
  };
}

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The iframe that embeds the page at `base` (origin and path) with `hash`. */
export function embedCode(base, hash, locked) {
  const src = `${base}?embed=1${locked ? '&lock=1' : ''}${hash}`;
  const attr = src.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
  return `<iframe src="${attr}" title="trainplan" width="100%" height="1000" style="border:0" loading="lazy"></iframe>`;
}
