// Private agents on the Agents page: a person makes one of their own, lands on its page, and
// finds it among the agents they may ask; nobody else sees it. A refused name keeps what was typed.

import { describe, test } from 'node:test';
import { TEST_TIMEOUT, expectCount, expectTextContains, expectValue, jsLabel, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

const AGENTS = '/company/agents';

for (const js of [true, false]) {
  describe(`private agents (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`alice makes a private agent that only she sees and asks (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.goto(AGENTS);
      if (js) await waitHydrated(page);
      const section = page.locator('section.private-agents');
      await expectTextContains(section, 'You have no private agents yet.');
      await section.locator('input[name="name"]').fill('Inbox');
      await section.locator('textarea[name="description"]').fill('Sorts my mail.');
      await Promise.all([
        page.waitForURL(/\/company\/agents\/\d+$/),
        section.getByRole('button', { name: 'Add private agent' }).click(),
      ]);
      await expectTextContains(page.locator('p.notice.ok'), 'Added your private agent Inbox (Alice Chen)');
      await expectTextContains(page.locator('p.private-agent'), 'only you see it and ask it');
      await expectTextContains(page.locator('section.toolsets'), 'A private agent holds no company toolsets');

      await page.goto(AGENTS);
      if (js) await waitHydrated(page);
      await expectTextContains(section.locator('ul.private-agents'), 'Inbox (Alice Chen)');
      // The same name again is refused, and the form keeps what she typed.
      await section.locator('input[name="name"]').fill('Inbox');
      await section.locator('textarea[name="description"]').fill('A second inbox.');
      await Promise.all([waitForPath(page, AGENTS), section.getByRole('button', { name: 'Add private agent' }).click()]);
      await expectTextContains(section.locator('p.notice.refused'), 'You already have a private agent called Inbox');
      await expectValue(section.locator('input[name="name"]'), 'Inbox');
      await expectValue(section.locator('textarea[name="description"]'), 'A second inbox.');

      await page.goto('/ask');
      await expectCount(page.locator('select[name="agent"] option', { hasText: 'Inbox (Alice Chen) · your private agent' }), 1);

      const bob = (await env.signedInPage('bob', js)).page;
      await bob.goto('/ask');
      await expectCount(bob.locator('select[name="agent"] option', { hasText: 'Inbox' }), 0, 'nobody else may ask it');
      await bob.goto(AGENTS);
      await expectCount(bob.locator('article.agent', { hasText: 'Inbox' }), 0, 'nor sees it among the agents');
      await expectTextContains(bob.locator('section.private-agents'), 'You have no private agents yet.');
      env.assertNoBrowserErrors();
    });
  });
}
