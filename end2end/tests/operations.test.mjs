// Scenario: Company → Operations. Ada, the admin, follows the nav to what memory costs: each layer's
// rows and bytes, the tables behind them, the last 30 days in the company's zone with today's runs
// from the demo's first day, the oldest card past its hard limit and the projection to 10,000
// people. Alice, a member, has no link to it and is refused if she goes there. The page only
// reads, so it is the same with JavaScript on and off. With JavaScript on and off.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, expectCount, expectText, expectTextContains, jsLabel, useEngram, waitHydrated, waitForPath } from './helpers.mjs';

const ADMINS_ONLY = 'Only an admin sees what memory costs';
const LAYERS = ['Cores', "Who's who", 'Cards', 'Lists', 'Lessons', "Bots' rows"];

/** Opens the Company menu, where the nav keeps the company's pages under one. */
async function openCompanyMenu(page) {
  const menu = page.locator('details.menu.company > summary');
  if (await menu.count()) await menu.click();
}

/** Today's date in the demo company's zone, as the page dates its days. */
const todayInKolkata = () =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

for (const js of [true, false]) {
  describe(`operations (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`ada sees what memory costs, per layer and per day (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('ada', js);
      if (js) await waitHydrated(page);
      await openCompanyMenu(page);
      await Promise.all([waitForPath(page, '/company/operations'), page.locator('header nav').getByRole('link', { name: 'Operations', exact: true }).click()]);
      if (js) await waitHydrated(page);
      await expectText(page.locator('main h1'), 'Operations');
      await expectTextContains(page.locator('p.lead'), 'never what it says');
      await expectTextContains(page.locator('p.lead'), 'Asia/Kolkata');
      await expectText(page.locator('li.people'), 'People: 7');
      await expectTextContains(page.locator('li.memory-bytes'), 'per person');

      const layers = page.locator('table.ops-layers tbody tr');
      await expectCount(layers, LAYERS.length, 'one row a layer');
      for (const [i, name] of LAYERS.entries()) {
        await expectText(layers.nth(i).locator('td').first(), name);
      }
      // The tables behind each layer open in place, with or without JavaScript.
      const tables = page.locator('details.ops-tables');
      await tables.locator('summary').click();
      await expectTextContains(tables.locator('table'), 'org_agent_episodes');
      await expectTextContains(tables.locator('table'), 'tasks (improve cards)');

      // The last 30 days, newest first: today holds the demo's first day of work.
      const days = page.locator('table.ops-days tbody tr');
      await expectCount(days, 30, 'thirty days');
      const today = days.first();
      assert.equal(await today.getAttribute('data-day'), todayInKolkata());
      const runs = Number(await today.locator('td').nth(1).textContent());
      assert.ok(runs >= 1, `today's runs: ${runs}`);

      await expectText(page.locator('section.ops-past-limit h2'), 'Oldest card past its hard limit');
      const projection = page.locator('section.ops-projection');
      await expectText(projection.locator('h2'), 'At 10,000 people');
      await expectTextContains(projection.locator('p.method'), 'Projected from the 7 people measured');
      await expectCount(projection.locator('table.ops-projected-layers tbody tr'), LAYERS.length, 'every layer projected');
      await expectTextContains(projection.locator('li.nightly'), 'daily budget');
      env.assertNoBrowserErrors();
    });

    test(`alice has no link to it and is refused (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('alice', js);
      if (js) await waitHydrated(page);
      await openCompanyMenu(page);
      await expectCount(page.locator('header nav').getByRole('link', { name: 'Operations', exact: true }), 0, 'not in her nav');
      await page.goto('/company/operations');
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice.refused[role=alert]'), ADMINS_ONLY);
      await expectCount(page.locator('table.ops-days'), 0, 'no figures');
      env.assertNoBrowserErrors();
    });
  });
}
