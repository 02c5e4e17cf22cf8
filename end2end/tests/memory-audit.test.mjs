// The memory audit of a bot's MEMORY.md and USER.md (seed 004) on the agent page: its owner's
// dry run shows the actions and writes nothing; the audit applies them, hands the operating rule
// to a person as an improve card, and Undo puts the files back.

import { describe, test } from 'node:test';
import { TEST_TIMEOUT, expectCount, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

const SCOUT = '/org/agents/scout';
const NOTE = 'In this session Sam asked for three leads and I sent two.';

for (const js of [true, false]) {
  describe(`the memory audit (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`the owner dry-runs, applies and undoes an audit (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('sam', js);
      await page.goto(SCOUT);
      if (js) await waitHydrated(page);
      const panel = page.locator('section#memory-audit');
      await expectTextContains(panel.locator('p.meta'), 'Last audit: never');
      await expectTextContains(panel.locator('p.audit-usage'), 'of 2200 characters');

      await Promise.all([waitForPath(page, SCOUT), panel.getByRole('button', { name: 'Dry run' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Dry run, nothing was written. DRY_RUN scout (requested)');
      const preview = page.locator('section#memory-audit div.audit-preview');
      await expectTextContains(preview, `DELETE from MEMORY.md: "${NOTE}" (Session Note): would apply`);
      await expectTextContains(preview, 'would file an improve card to add it to knowledge/scout/qualifying.md');
      await expectTextContains(page.locator('pre.handwritten'), NOTE);
      await expectTextContains(panel.locator('p.meta'), 'Last audit: never');

      await Promise.all([waitForPath(page, SCOUT), panel.getByRole('button', { name: 'Audit now' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Memory audit #1 applied. COMPLETE scout (requested)');
      const audit = page.locator('article#memory-audit-1');
      await expectTextContains(audit, `(Session Note) — applied`);
      await expectTextContains(audit, 'filed to add it to knowledge/scout/qualifying.md');
      await expectTextContains(panel.locator('ul.unresolved'), 'Bengaluru leads come first this quarter.');
      await expectCount(page.locator('pre.handwritten', { hasText: NOTE }), 0, 'the session note left MEMORY.md');
      await expectTextContains(page.locator('pre.handwritten'), 'MEMORY.md rewritten. Utilization:');
      await expectCount(page.locator('div.audit-preview'), 0, 'a dry run is shown once');

      await Promise.all([waitForPath(page, SCOUT), audit.getByRole('button', { name: 'Undo audit' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Undid memory audit #1: both files are as they were before it');
      await expectTextContains(page.locator('pre.handwritten'), NOTE);
      await expectTextContains(page.locator('article#memory-audit-1 p.meta'), 'undone by person:sam@acme.example');
      await expectCount(page.locator('article#memory-audit-1').getByRole('button', { name: 'Undo audit' }), 0);
      env.assertNoBrowserErrors();
    });
  });
}
