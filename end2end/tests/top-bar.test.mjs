// The top bar fits one line at 1280 px: the company's pages sit under one "Company" menu and a
// person's own settings under their name. Both menus are `<details>`, so they open without
// JavaScript too.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  TEST_TIMEOUT, expectCount, jsLabel, pathOf, useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

/** The vertical centre of every item in the bar, rounded, as a set: one line gives one value. */
async function lineCentres(page) {
  return page.evaluate(() => {
    const items = [
      document.querySelector('header.top .brand'),
      ...document.querySelectorAll('header.top nav > *'),
      document.querySelector('header.top details.who > summary'),
    ];
    return [...new Set(items.map((el) => {
      const r = (el.matches('details') ? el.querySelector('summary') : el).getBoundingClientRect();
      return Math.round((r.top + r.bottom) / 2);
    }))];
  });
}

for (const js of [true, false]) {
  describe(`the top bar (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`an admin's bar is one line at 1280 px, with the company's pages under Company (${jsLabel(js)})`,
      { timeout: TEST_TIMEOUT }, async () => {
        const { page } = await env.signedInPage('ada', js);
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.goto('/');
        if (js) await waitHydrated(page);

        const centres = await lineCentres(page);
        assert.equal(centres.length, 1, `every item of the bar on one line, found centres at ${centres}`);

        const company = page.locator('header.top details.company');
        const people = company.getByRole('link', { name: 'People', exact: true });
        assert.equal(await people.isVisible(), false, 'the menu starts closed');
        await company.locator('summary').click();
        for (const name of ['Roles and core knowledge', 'Teams', 'People', 'Connectors', 'Events', 'Memory settings', 'Operations', 'Erase a third party']) {
          assert.ok(await company.getByRole('link', { name, exact: true }).isVisible(), `${name} in the Company menu`);
        }
        await people.click();
        await waitForPath(page, '/company/people');
        assert.equal(pathOf(page), '/company/people');

        // Her own settings and signing out are under her name.
        if (js) await waitHydrated(page);
        const who = page.locator('header.top details.who');
        await who.locator('summary').click();
        await who.getByRole('button', { name: 'Sign out' }).click();
        await waitForPath(page, '/signin');

        env.assertNoBrowserErrors();
      });

    test(`a non-admin's Company menu holds only what she may open (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto('/');
      if (js) await waitHydrated(page);

      assert.equal((await lineCentres(page)).length, 1, 'one line');
      const company = page.locator('header.top details.company');
      await company.locator('summary').click();
      assert.ok(await company.getByRole('link', { name: 'Teams', exact: true }).isVisible());
      await expectCount(company.getByRole('link', { name: 'People', exact: true }), 0, 'no People for a non-admin');
      await expectCount(company.getByRole('link', { name: 'Memory settings', exact: true }), 0, 'no Memory settings');
      await company.getByRole('link', { name: 'Teams', exact: true }).click();
      await waitForPath(page, '/company/teams');

      env.assertNoBrowserErrors();
    });
  });
}
