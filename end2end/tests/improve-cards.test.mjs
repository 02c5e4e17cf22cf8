// Improve cards: a bot's proposed change to itself is applied or closed by a person, and Apply is
// refused when the file changed since the proposal was made.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { TEST_TIMEOUT, expectCount, expectText, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

const IMPROVE = '/org/improve';
const ADDED = '      - When a site blocks my search tool, I use the company registry instead.';

for (const js of [true, false]) {
  describe(`applying an improve card (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`Apply is refused after the file changed, then applies (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const orgYaml = env.vaultPath('.agents', 'org', 'org.yaml');
      const original = await readFile(orgYaml, 'utf8');
      const { page } = await env.signedInPage('sam', js);
      await page.goto(IMPROVE);
      if (js) await waitHydrated(page);
      const card = page.locator('article#improve-3');
      await expectTextContains(card, 'Twice a lead');
      await expectTextContains(card.locator('pre.diff span.add'), ADDED.trim());

      // Someone edits the file by hand after the proposal.
      const edited = original.replace('Curious and brisk.', 'Curious, brisk and polite.');
      await writeFile(orgYaml, edited);
      await page.reload();
      await expectTextContains(card, 'has changed since this proposal was made; Apply will be refused.');
      await Promise.all([waitForPath(page, IMPROVE), card.getByRole('button', { name: 'Apply' }).click()]);
      await expectTextContains(page.locator('p.notice.refused[role=alert]'), '.agents/org/org.yaml has changed since this proposal was made, so it was not applied and nothing was written.');
      assert.equal(await readFile(orgYaml, 'utf8'), edited, 'nothing was written');

      // Put back as it was, Apply writes the change.
      await writeFile(orgYaml, original);
      await page.goto(IMPROVE);
      if (js) await waitHydrated(page);
      await Promise.all([waitForPath(page, IMPROVE), page.locator('article#improve-3').getByRole('button', { name: 'Apply' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'Applied improve card #3: .agents/org/org.yaml is changed');
      await expectCount(page.locator('article#improve-3'), 0, 'an applied card leaves Suggested changes');
      assert.ok((await readFile(orgYaml, 'utf8')).includes(`${ADDED}\n    tools: [crm_search, web_search]`));

      await page.goto('/org/agents/scout');
      await expectTextContains(page.locator('article#improve-3 p.meta').first(), 'applied');
      env.assertNoBrowserErrors();
    });
  });

  describe(`closing an improve card (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`Close keeps the reason and changes nothing (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const orgYaml = env.vaultPath('.agents', 'org', 'org.yaml');
      const before = await readFile(orgYaml, 'utf8');
      const { page } = await env.signedInPage('ada', js);
      await page.goto('/org/agents/scout');
      if (js) await waitHydrated(page);
      const card = page.locator('article#improve-3');
      await card.locator('input[name=reason]').fill('The registry is paywalled');
      await Promise.all([waitForPath(page, '/org/agents/scout'), card.getByRole('button', { name: 'Close' }).click()]);
      await expectText(page.locator('p.notice.ok'), 'Closed improve card #3; nothing was changed in the vault');
      await expectTextContains(page.locator('article#improve-3 p.meta').first(), 'closed: The registry is paywalled');
      await expectCount(page.locator('article#improve-3').getByRole('button', { name: 'Apply' }), 0);
      assert.equal(await readFile(orgYaml, 'utf8'), before);
      await page.goto(IMPROVE);
      await expectTextContains(page.locator('main'), 'No open improve cards for the bots you own or lead.');
      env.assertNoBrowserErrors();
    });
  });
}
