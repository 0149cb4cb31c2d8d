// format.js: the one place numbers become text for people.
export const GIB = 1024 ** 3;

export const gib = (bytes) => (bytes / GIB).toFixed(2);
export const percent = (fraction) => (100 * fraction).toFixed(1) + '%';
export const billions = (count) => (count / 1e9).toFixed(2) + ' B';
