// browser.mjs: Debian's chromium driven by playwright-core (no browser
// download), with the flags this closed network needs.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** "#v=1&key=value…" for a set of inputs, written out here rather than by
 * the page's own encoder, so that the tests read links as users write them. */
export const hashOf = (inputs) => '#' + new URLSearchParams({ v: '1', ...inputs }).toString();

/** openSite with its page opened at `hash` (a string from hashOf or by
 * hand) once `ready`, a selector, is in the page. */
export async function openSiteAt(viewport, hash, ready = '[data-testid=peak-gib]', serve = undefined) {
  const opened = await openSite(viewport, serve);
  await opened.page.goto(opened.url + hash);
  await opened.page.locator(ready).first().waitFor({ state: 'attached' });
  return opened;
}

/** The built site served locally (by `serve`, server.mjs's serveSite
 * unless given) and one page on it in Chromium, with the page's errors and
 * console errors collected in `errors`. */
export async function openSite(viewport, serve = undefined) {
  const site = await (serve ?? (await import('./server.mjs')).serveSite)();
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return {
    url: site.url, page, errors,
    newPage: (options) => browser.newPage(options),
    async close() {
      await browser.close();
      await site.close();
    },
  };
}
