// Scenario: the seed's demo steps 1–3. Ada writes the Sales core; Alice asks the Sales Assistant;
// the answer's Details name what the run read from memory; an admin sees Memory used on Events.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  editorPath, expectText, expectTextContains, jsLabel, markDocument, rolePath, stayedOnDocument,
  useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

const STAGES = 'Stages: New, Qualified, Proposal, Won, Lost.';
const QUESTION = 'what are our sales stages';
// The demo model answers within a second or two; without JavaScript the page reloads every two.
const ANSWER_TIMEOUT = 20_000;

for (const js of [true, false]) {
  describe(`asking an agent (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`alice asks the Sales Assistant and Details shows the memory used (${jsLabel(js)})`, { timeout: 90_000 }, async () => {
      // Step 1: Ada writes the Sales company core.
      const { page: ada } = await env.signedInPage('ada', js);
      await ada.goto(editorPath('sales'));
      const textarea = ada.locator('textarea#core-text');
      await textarea.waitFor();
      if (js) await waitHydrated(ada);
      await textarea.fill(STAGES);
      await Promise.all([
        waitForPath(ada, rolePath('sales')),
        ada.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      await expectText(ada.locator('p.notice.ok'), 'Saved version 1');
      await expectText(ada.locator('section.core p.meter'), '11 of 2,000 tokens');

      // Step 2: Alice asks the Sales Assistant from the Ask page.
      const { page } = await env.signedInPage('alice', js);
      if (js) await waitHydrated(page);
      await Promise.all([
        waitForPath(page, '/ask'),
        page.locator('header nav').getByRole('link', { name: 'Ask', exact: true }).click(),
      ]);
      await expectText(page.locator('main h1'), 'Ask');
      if (js) {
        await waitHydrated(page);
        await markDocument(page);
      }
      await page.locator('select[name=agent]').selectOption({ label: 'Sales Assistant (Sales)' });
      await page.locator('textarea#question').fill(QUESTION);
      await Promise.all([
        page.waitForURL((url) => /^\/threads\/\d+$/.test(url.pathname)),
        page.getByRole('button', { name: 'Ask', exact: true }).click(),
      ]);
      await expectText(page.locator('main h1'), QUESTION);
      if (js) {
        await waitHydrated(page);
        await markDocument(page);
      }

      // The answer appears: fetched by the page with JavaScript, by the page's own reload without.
      const run = page.locator('section.run').first();
      await run.locator('.answer').waitFor({ timeout: ANSWER_TIMEOUT });
      const answer = (await run.locator('.answer p.text').textContent()).trim();
      assert.ok(answer.length > 0, 'the answer has words');
      await expectText(run.locator('p.model-note'), 'Answered by the demo model: scripted replies, no language model');
      if (js) {
        assert.equal(await stayedOnDocument(page), true, 'the answer appeared without a reload');
      }

      // Step 3: Details lists what the run read from memory.
      const details = run.locator('details.steps');
      await details.locator('summary').click();
      const memory = details.locator('li[data-kind=memory_used]');
      await expectText(memory.locator('.step-name'), 'Memory used');
      await expectTextContains(memory, 'Read from memory: 1 core and who\'s who');
      await expectTextContains(memory, 'Sales company core, version 1');
      await expectTextContains(memory, 'Who\'s who: The people and teams around this work');
      assert.equal(await memory.locator('ul li').first().isVisible(), true, 'Details is open');

      // Her thread is listed on the Ask page.
      await page.goto('/ask');
      await expectText(page.locator('ul.threads li a').first(), QUESTION);

      // An admin sees the Memory used event, by ids only.
      await ada.goto('/company/events');
      await expectText(ada.locator('main h1'), 'Events');
      const row = ada.locator('table.events tbody tr').first();
      await expectText(row.locator('td').first(), 'Memory used');
      await expectTextContains(row, 'core company role:sales v1');
      await expectTextContains(row, 'slice');
      const rowText = await row.textContent();
      assert.ok(!rowText.includes('Stages'), 'the event never says what memory says');

      // Alice is no admin: Events refuses her plainly.
      await page.goto('/company/events');
      await expectText(page.locator('p.notice.refused'), 'Only an admin can see Events');

      env.assertNoBrowserErrors();
    });
  });
}
