// The agent page: what a bot has learned, its episodes and proposals, readable with JS off; the
// owner corrects and retires lines, and anyone else is refused.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  TEST_TIMEOUT, expectCount, expectText, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

const SCOUT = '/org/agents/scout';
const line = (page, id) => page.locator(`li#line-${id}`);

for (const js of [true, false]) {
  describe(`the agent page (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`shows the bot's memory, and a name off the roster is 404 (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('bob', js);
      const res = await page.goto(SCOUT);
      assert.equal(res.status(), 200);
      if (js) await waitHydrated(page);
      await expectText(page.locator('h1'), 'Bot: scout');
      await expectTextContains(page.locator('main'), 'owner Sam Rao · lead Ada Lovelace');
      await expectTextContains(page.locator('p.meter'), 'of 1,500 tokens');
      await expectTextContains(page.locator('pre.core'), '[friction] I lose time when a lead');
      await expectTextContains(line(page, 2), 'seen 2×');
      await expectTextContains(page.locator('tr#episode-1'), 'I finished task #1');
      await expectTextContains(page.locator('article.improve'), 'When a site blocks my search tool, I use the company registry instead.');
      await expectTextContains(page.locator('pre.handwritten'), 'Bengaluru leads come first this quarter.');
      await expectTextContains(page.locator('p.model'), 'The model step is off');
      await expectCount(page.getByText('Edit or retire'), 0, 'bob is neither owner nor lead');
      await expectCount(page.getByRole('button', { name: 'Apply' }), 0);

      // Evidence links lead to the episodes on the same page.
      const evidence = line(page, 2).getByRole('link', { name: 'episode 2' });
      assert.equal(await evidence.getAttribute('href'), `${SCOUT}#episode-2`);

      env.assertNoBrowserErrors();

      // The browser logs the 404 itself; that is the point here, not an error of the app.
      const missing = await page.goto('/org/agents/nobody');
      assert.equal(missing.status(), 404);
      await expectTextContains(page.locator('p.notice.refused'), 'There is no agent named nobody on the roster');
    });

    test(`the owner edits and retires lines; others are refused (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('sam', js);
      await page.goto(SCOUT);
      if (js) await waitHydrated(page);

      const pref = line(page, 3);
      await pref.getByText('Edit or retire').click();
      await pref.locator('input[name=text]').fill('I prefer leads with a named contact and a phone number.');
      await Promise.all([
        waitForPath(page, SCOUT),
        pref.getByRole('button', { name: 'Save correction' }).click(),
      ]);
      await expectText(page.locator('p.notice.ok'), 'Corrected line #3; #6 supersedes it and core.md is re-rendered');
      await expectTextContains(line(page, 6), 'I prefer leads with a named contact and a phone number.');
      await expectCount(line(page, 3).getByText('Edit or retire'), 0, 'the old line is closed');

      const lesson = line(page, 1);
      await lesson.getByText('Edit or retire').click();
      await lesson.locator('input[name=reason]').fill('We stopped using the CRM for this');
      await lesson.getByRole('button', { name: 'Retire' }).click();
      await expectText(page.locator('p.notice.ok'), 'Retired line #1; it stays in the closed lines with your reason');
      const closed = page.locator('details.closed');
      await expectTextContains(closed.locator('summary'), 'Closed lines (2)');
      await closed.locator('summary').click();
      await expectTextContains(closed, 'retired: We stopped using the CRM for this');
      await expectTextContains(closed, '(superseded by #6)');

      // Bob has no buttons; a forged form post is refused and changes nothing.
      const bob = await env.signedInPage('bob', js);
      const forged = await bob.ctx.request.post('/fn/retire_memory_line', {
        form: { id: '2', agent: 'scout', reason: 'I do not like it' },
        headers: { accept: 'text/html' },
        maxRedirects: 0,
      });
      assert.ok([302, 303].includes(forged.status()), `a form post redirects back, got ${forged.status()}`);
      await bob.page.goto(SCOUT);
      await expectText(bob.page.locator('p.notice.refused'), "Only scout's owner or lead can change its memory or its improve cards");
      await expectTextContains(line(bob.page, 2), 'seen 2×');
      env.assertNoBrowserErrors();
    });
  });
}
