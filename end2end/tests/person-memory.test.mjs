// Profile → Memory: a person pins, refreshes, forgets (after a confirmation) and pins back the
// records kept for their work; an admin sees only how much is kept, and marks someone as left.

import { describe, test } from 'node:test';
import {
  TEST_TIMEOUT, expectCount, expectText, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

const MEMORY = '/profile/memory';

for (const js of [true, false]) {
  describe(`Profile → Memory (${jsLabel(js)})`, () => {
    const env = useEngram();
    const card = (page, record) => page.locator('li.card', { hasText: record });

    test(`an admin sees counts, never what they say (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('ada', js);
      await page.goto('/company/people');
      if (js) await waitHydrated(page);
      await page.getByRole('link', { name: 'Alice Chen' }).click();
      const drawer = page.locator('aside.drawer');
      await expectText(drawer.locator('p.memory-counts'), 'Memory: 3 records kept (1 pinned), 0 lessons in use. What they say is theirs alone.');
      await expectCount(page.getByText('Nimbus Logistics'), 0, 'no value of her cards');
      env.assertNoBrowserErrors();
    });

    test(`pin, refresh and forget (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.goto(MEMORY);
      if (js) await waitHydrated(page);
      await expectTextContains(card(page, 'L-1001').locator('p.line'), 'lead · Acme ATS · read');
      await expectTextContains(card(page, 'L-1001').locator('p.line'), 'pinned');
      await expectTextContains(page.locator('p.prepare'), 'On: at 08:30 your time (Asia/Kolkata)');

      // Pin.
      await Promise.all([waitForPath(page, MEMORY), card(page, 'L-1002').getByRole('button', { name: 'Pin' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'Pinned: it stays in your memory above what use alone keeps');
      await expectTextContains(card(page, 'L-1002').locator('p.line'), 'pinned');

      // Someone moves the deal on in Acme ATS; Refresh says what changed.
      await env.changeRecord('leads', 'L-1002', { stage: 'Proposal' });
      await Promise.all([waitForPath(page, MEMORY), card(page, 'L-1002').getByRole('button', { name: 'Refresh' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'lead L-1002: changed: stage (Qualified → Proposal)');
      await expectTextContains(card(page, 'L-1002').locator('p.record'), 'Stage: Proposal');
      // Each field under its label, the deal's value in the company's locale (en-IN); the stored
      // value is the source's own 640000.
      await expectTextContains(card(page, 'L-1002').locator('p.record'), 'Value: ₹6,40,000');
      await expectTextContains(card(page, 'L-1002').locator('p.record'), 'Contact: Arjun Hegde');
      await Promise.all([waitForPath(page, MEMORY), card(page, 'L-1002').getByRole('button', { name: 'Refresh' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'lead L-1002: no change');

      // Forget asks first; Keep it changes nothing.
      await card(page, 'L-1002').getByRole('link', { name: 'Forget' }).click();
      const confirm = page.getByRole('alertdialog');
      await expectTextContains(confirm, 'Forget lead L-1002? It is removed from your memory and not kept for you again for 30 days, unless you pin it.');
      await confirm.getByRole('link', { name: 'Keep it' }).click();
      await expectCount(page.getByRole('alertdialog'), 0);
      await expectCount(card(page, 'L-1002'), 1);
      await card(page, 'L-1002').getByRole('link', { name: 'Forget' }).click();
      await Promise.all([waitForPath(page, MEMORY), page.getByRole('alertdialog').getByRole('button', { name: 'Forget it' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'Forgotten. It is not kept for you again for 30 days, unless you pin it.');
      await expectCount(card(page, 'L-1002'), 0);
      await expectCount(card(page, 'L-1001'), 1);

      // Within its 30 days she can pin it back: it is read again, as her, and kept pinned.
      const forgotten = page.locator('ul.forgotten li', { hasText: 'lead L-1002' });
      await expectTextContains(forgotten, 'lead L-1002 · Acme ATS · forgotten just now · kept out until');
      await Promise.all([waitForPath(page, MEMORY), forgotten.getByRole('button', { name: 'Pin it back' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'Pinned lead L-1002 back, read again from Acme ATS');
      await expectTextContains(card(page, 'L-1002').locator('p.line'), 'pinned');
      await expectCount(page.locator('ul.forgotten li'), 0);
      env.assertNoBrowserErrors();
    });

    test(`an admin marks someone as left, after a confirmation (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('ada', js);
      await page.goto('/company/people');
      if (js) await waitHydrated(page);
      await page.getByRole('link', { name: 'Bob Diaz' }).click();
      const drawer = page.locator('aside.drawer');
      await drawer.getByRole('link', { name: 'Mark as left…' }).click();
      const confirm = page.getByRole('alertdialog');
      await expectTextContains(confirm, 'Mark Bob Diaz as left? They are signed out and can no longer sign in');
      await confirm.getByRole('link', { name: 'Cancel' }).click();
      await expectCount(page.getByRole('alertdialog'), 0);
      await drawer.getByRole('link', { name: 'Mark as left…' }).click();
      await Promise.all([
        waitForPath(page, '/company/people'),
        page.getByRole('alertdialog').getByRole('button', { name: 'Mark as left' }).click(),
      ]);
      await expectTextContains(page.locator('p.notice.ok'), 'Bob Diaz has left: they can no longer sign in,');
      await expectTextContains(drawer.locator('p.memory-counts'), 'Memory: 0 records kept (0 pinned)');
      await expectTextContains(drawer.locator('p.left'), 'They can no longer sign in.');
      await expectCount(drawer.getByRole('link', { name: 'Mark as left…' }), 0);
      env.assertNoBrowserErrors();
    });
  });
}
