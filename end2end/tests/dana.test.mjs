// Scenario: never act from memory (seed 001's Dana Brooks demo). Alice keeps a lesson in her own
// words with Dana's address. Asked to email Dana, the demo model sends straight to the remembered address:
// the step is refused with the seed's sentence and nothing waits in her Inbox. Asked to read
// Litware's lead first, it sends to the address it read: the message waits in her Inbox, and she
// approves it. With JavaScript on and off.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectText, expectTextContains, jsLabel, useEngram, waitHydrated, waitForPath } from './helpers.mjs';

const NOTE = 'Dana Brooks at Litware reads mail at dana@litware.example';
const REFUSED = 'This uses a remembered value; read the source first';
// The demo model answers within a second or two; a page without JS reloads every two seconds.
const ANSWER_TIMEOUT = 20_000;

async function ask(page, js, question, nth) {
  await page.goto('/ask');
  if (js) await waitHydrated(page);
  await page.locator('select[name=agent]').selectOption({ label: 'Sales Assistant (Sales)' });
  await page.locator('textarea#question').fill(question);
  await Promise.all([
    page.waitForURL((url) => /^\/threads\/\d+$/.test(url.pathname)),
    page.getByRole('button', { name: 'Ask', exact: true }).click(),
  ]);
  await expectText(page.locator('main h1'), question);
  const run = page.locator('section.run').nth(nth);
  const answer = run.locator('.answer p.text');
  await answer.waitFor({ timeout: ANSWER_TIMEOUT });
  return { run, answer };
}

for (const js of [true, false]) {
  describe(`never acting from memory (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`a send from a remembered address is refused, one after a read waits for approval (${jsLabel(js)})`,
      { timeout: 120_000 }, async () => {
        const { page } = await env.signedInPage('alice', js);

        // Alice keeps the lesson on Profile → Memory → What I've learned.
        await page.goto('/profile/memory');
        if (js) await waitHydrated(page);
        await page.locator('textarea#lesson-text').fill(NOTE);
        await Promise.all([
          waitForPath(page, '/profile/memory'),
          page.getByRole('button', { name: 'Keep lesson', exact: true }).click(),
        ]);
        await expectText(page.locator('ul.lessons li .text').first(), NOTE);

        // Straight from memory: refused, and the model is told so.
        const first = await ask(page, js, 'email Dana that the proposal is ready', 0);
        await expectText(first.answer, `I did not send the email to dana@litware.example: ${REFUSED}.`);
        await first.run.locator('details.steps summary').click();
        await expectTextContains(first.run.locator('li[data-kind=refused]'), `Refused send_email: ${REFUSED}`);
        await page.goto('/inbox');
        await expectText(page.locator('main p').filter({ hasText: 'Nothing waits' }), 'Nothing waits in your Inbox.');

        // After reading Litware's lead: the message waits for her approval.
        const second = await ask(page, js, "read Litware's lead, then email Dana", 0);
        await expectText(second.answer, 'The email to dana@litware.example waits in your Inbox for your approval.');
        await page.goto('/inbox');
        if (js) await waitHydrated(page);
        const waiting = page.locator('li.action').first();
        await expectTextContains(waiting.locator('strong'), 'email to dana@litware.example: Following up');
        await expectText(waiting.locator('p.state'), 'Waiting for you');
        await Promise.all([
          waitForPath(page, '/inbox'),
          waiting.getByRole('button', { name: 'Approve', exact: true }).click(),
        ]);
        await expectTextContains(page.locator('li.action').first().locator('p.state'), 'Done');
        assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).count(), 0, 'nothing else waits');
      });
  });
}
