// Scenario: Profile → Memory → What I've learned. Alice keeps a lesson in her own words, corrects
// it and sees the earlier one under No longer current, then forgets it with the version it
// replaced. She proposes a lesson for her team, and Sam, its lead, accepts it under Review. Sue
// reads the lesson the nightly job made from the demo's first day, and its evidence opens her run.
// With JavaScript on and off.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectCount, expectText, expectTextContains, jsLabel, useEngram, waitHydrated, waitForPath } from './helpers.mjs';

const FIRST = "Kaveri Foods' CFO prefers calls before 10";
const SECOND = "Kaveri Foods' CFO prefers calls before 11, and never on Fridays";
const TEAM = 'Kaveri quotes go to procurement first';
// The demo's first day: Sue asked the Support Agent this, and the nightly job kept it for her.
const QUESTION = "Remember: refunds over $500 need the team lead's approval before they are promised.";
const REFUNDS = "Refunds over $500 need the team lead's approval before they are promised.";

async function submit(page, button) {
  await Promise.all([waitForPath(page, '/profile/memory'), button.click()]);
}

for (const js of [true, false]) {
  describe(`what I've learned (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`alice corrects a lesson and sees it under No longer current (${jsLabel(js)})`, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.goto('/profile/memory');
      if (js) await waitHydrated(page);
      const learned = page.locator('section.lessons');
      await expectText(learned.locator('h2'), "What I've learned");
      await expectText(learned.locator('p').filter({ hasText: 'No lessons' }), 'No lessons in use yet.');

      await page.locator('textarea#lesson-text').fill(FIRST);
      await submit(page, page.getByRole('button', { name: 'Keep lesson', exact: true }));
      if (js) await waitHydrated(page);
      const current = learned.locator('ul.lessons:not(.past) > li');
      await expectText(current.first().locator('.text'), FIRST);
      await expectText(current.first().locator('.evidence span'), 'written by you');

      // Correct: her words replace it; the earlier one stays in her history.
      await current.first().locator('summary').click();
      await current.first().locator('textarea').fill(SECOND);
      await submit(page, current.first().getByRole('button', { name: 'Save correction', exact: true }));
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice'), 'Corrected. The earlier lesson stays in your history.');
      assert.equal(await current.count(), 1);
      await expectText(current.first().locator('.text'), SECOND);
      await expectText(learned.locator('h3'), 'No longer current');
      const past = learned.locator('ul.lessons.past > li');
      await expectText(past.first().locator('.text'), FIRST);
      await expectText(past.first().locator('.meta'), 'superseded just now (corrected)');

      // Forget asks first; Keep it changes nothing. Forget it takes the lesson and the version it replaced.
      await current.first().getByRole('link', { name: 'Forget', exact: true }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Forget this lesson?' });
      await expectTextContains(confirm, `Forget “${SECOND}”? It is removed from your memory with the versions it replaced.`);
      await confirm.getByRole('link', { name: 'Keep it' }).click();
      await expectCount(page.getByRole('alertdialog'), 0, 'Keep it closes the question');
      await expectCount(current, 1, 'and keeps the lesson');
      await current.first().getByRole('link', { name: 'Forget', exact: true }).click();
      await submit(page, page.getByRole('alertdialog').getByRole('button', { name: 'Forget it', exact: true }));
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice'), 'Forgotten, with the versions it replaced.');
      assert.equal(await current.count(), 0);
      assert.equal(await past.count(), 0);
      await expectText(learned.locator('p').filter({ hasText: 'No lessons' }), 'No lessons in use yet.');
    });

    test(`a lead accepts a team lesson proposal (${jsLabel(js)})`, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.goto('/profile/memory');
      if (js) await waitHydrated(page);
      await page.locator('textarea#lesson-text').fill(TEAM);
      await page.locator('select#lesson-scope').selectOption('team');
      await submit(page, page.getByRole('button', { name: 'Keep lesson', exact: true }));
      await expectText(page.locator('p.notice'), 'Proposed. It waits for review under No longer current until a reviewer accepts it');
      const past = page.locator('section.lessons ul.lessons.past > li');
      await expectText(past.first().locator('.text'), TEAM);
      await expectText(past.first().locator('.meta'), 'waiting for review just now');

      const lead = await env.signedInPage('sam', js);
      await lead.page.goto('/profile/memory');
      if (js) await waitHydrated(lead.page);
      const proposal = lead.page.locator('section.review ul.proposals > li');
      await expectText(proposal.first().locator('.text'), TEAM);
      await expectText(proposal.first().locator('.meta'), 'for Sales Bengaluru, from Alice Chen · waiting for review just now');
      await Promise.all([
        waitForPath(lead.page, '/profile/memory'),
        proposal.first().getByRole('button', { name: 'Accept', exact: true }).click(),
      ]);
      await expectText(lead.page.locator('p.notice'), 'Accepted. It loads into the runs of everyone it is for.');
      assert.equal(await lead.page.locator('section.review').count(), 0, 'nothing else waits for Sam');

      await page.goto('/profile/memory');
      const current = page.locator('section.lessons ul.lessons:not(.past) > li');
      await expectText(current.first().locator('.text'), TEAM);
    });

    test(`sue reads the lesson the nightly job made from her run (${jsLabel(js)})`, async () => {
      const { page } = await env.signedInPage('sue', js);
      await page.goto('/profile/memory');
      if (js) await waitHydrated(page);
      const current = page.locator('section.lessons ul.lessons:not(.past) > li');
      await expectText(current.first().locator('.text'), REFUNDS);
      const evidence = current.first().locator('.evidence a');
      assert.match(await evidence.first().innerText(), /^Run \d+, step \d+$/);
      // The evidence opens the run's thread, where her question is.
      await Promise.all([page.waitForURL(/\/threads\/\d+$/), evidence.first().click()]);
      await expectTextContains(page.locator('body'), QUESTION);
    });
  });
}
