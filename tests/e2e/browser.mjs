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

/** The built site served locally and one page on it in Chromium, with the
 * page's errors and console errors collected in `errors`. */
export async function openSite(viewport) {
  const { serveSite } = await import('./server.mjs');
  const site = await serveSite();
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
