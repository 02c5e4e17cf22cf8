// "Runs unasked" on a company agent's page: Sue, who owns the demo's Support Agent, sees its
// schedule (the demo's daily 09:00 summary), changes it and sees it listed with when it is next
// due in the company's zone; a bad time is refused and keeps what she typed; she makes a trigger
// and sees its secret once, never again.
// Alice, who does not own it, reads the same state without any form.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, expectCount, expectTextContains, expectValue, jsLabel, openCompanyAgent, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

for (const js of [true, false]) {
  describe(`runs unasked (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`the owner sets a schedule and makes a trigger whose secret shows once (${jsLabel(js)})`, { timeout: TEST_TIMEOUT * 2 }, async () => {
      const { page } = await env.signedInPage('sue', js);
      const agentPath = await openCompanyAgent(page, js, 'Support Agent');
      const section = page.locator('section.runs-unasked');
      // The demo gives it a daily summary at 09:00, and no trigger.
      await expectTextContains(section.locator('p.schedule-state'), 'Daily at 09:00 · next due ');
      await expectTextContains(section.locator('p.trigger-state'), 'No trigger.');

      // A time that is not HH:MM is refused with the sentence, the form keeps what she typed, and
      // the schedule is as it was.
      const form = section.locator('form.schedule-form');
      await form.locator('textarea[name="instruction"]').fill('List the escalated tickets opened since yesterday.');
      await form.locator('select[name="kind"]').selectOption('weekdays');
      await form.locator('input[name="value"]').fill('9am');
      await Promise.all([waitForPath(page, agentPath), form.getByRole('button', { name: 'Save schedule' }).click()]);
      await expectTextContains(page.locator('p.notice.refused'), 'Give the time as HH:MM, for example 09:00 (not "9am")');
      await expectValue(form.locator('textarea[name="instruction"]'), 'List the escalated tickets opened since yesterday.');
      await expectValue(form.locator('input[name="value"]'), '9am');
      await expectTextContains(section.locator('p.schedule-state'), 'Daily at 09:00 · next due ');

      await form.locator('input[name="value"]').fill('08:30');
      await Promise.all([waitForPath(page, agentPath), form.getByRole('button', { name: 'Save schedule' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Saved the schedule: On weekdays at 08:30. Next due ');
      await expectTextContains(section.locator('p.schedule-state'), 'On weekdays at 08:30 · next due ');
      await expectTextContains(section.locator('p.schedule-state'), ', 08:30 (Asia/Kolkata)');
      await expectTextContains(section.locator('pre.instruction'), 'List the escalated tickets opened since yesterday.');

      // Make the trigger: its secret once, with where to post it.
      await Promise.all([waitForPath(page, agentPath), section.getByRole('button', { name: 'Make trigger' }).click()]);
      await expectTextContains(page.locator('p.notice.ok').first(), 'Made the trigger');
      const secretBox = section.locator('p.trigger-secret code.secret');
      await expectCount(secretBox, 1);
      const secret = (await secretBox.textContent()).trim();
      assert.match(secret, /^trg_[0-9a-f]{64}$/);
      await expectTextContains(section.locator('p.trigger-state'), `${agentPath.replace('/company/agents/', '/api/agents/')}/trigger`);

      // Never again: a reload shows that there is a trigger, not its secret.
      await page.reload();
      if (js) await waitHydrated(page);
      await expectTextContains(section.locator('p.trigger-state'), 'Another system starts this agent by posting to');
      await expectCount(section.locator('p.trigger-secret'), 0, 'the secret is shown once');
      assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere on the page');
      await expectCount(section.getByRole('button', { name: 'Rotate secret' }), 1);

      // Alice reads the schedule but may change nothing.
      const alice = (await env.signedInPage('alice', js)).page;
      await alice.goto(agentPath);
      if (js) await waitHydrated(alice);
      const hers = alice.locator('section.runs-unasked');
      await expectTextContains(hers.locator('p.schedule-state'), 'On weekdays at 08:30 · next due ');
      await expectCount(hers.locator('form'), 0, 'only the owner or an admin sees the forms');
      await expectTextContains(hers, 'Only the agent\'s owner or an admin can change when it runs unasked.');
      assert.ok(!(await alice.content()).includes(secret));
      env.assertNoBrowserErrors();
    });
  });
}
