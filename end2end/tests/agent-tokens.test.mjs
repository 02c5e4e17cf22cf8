// "Agent tokens" on a company agent's page: Sue, who owns the demo's Support Agent, makes a token
// for an outside agent; a name too long is refused and the field keeps what she typed; the secret
// shows once, and an outside agent holding it starts a run over the REST pair; she revokes it and
// it stops at once. Alice, who does not own it, sees no such section at all.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, expectCount, expectTextContains, expectValue, jsLabel, openCompanyAgent, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

async function startRun(baseURL, token) {
  const r = await fetch(`${baseURL}/api/runs/external`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Which tickets are escalated?' }),
  });
  return { status: r.status, body: await r.json() };
}

for (const js of [true, false]) {
  describe(`agent tokens (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`the owner makes a token shown once, an outside agent uses it, and revoking stops it (${jsLabel(js)})`, { timeout: TEST_TIMEOUT * 2 }, async () => {
      const { page } = await env.signedInPage('sue', js);
      const agentPath = await openCompanyAgent(page, js, 'Support Agent');
      const section = page.locator('section.agent-tokens');
      await expectTextContains(section.locator('p.agent-tokens-state'), 'No agent tokens.');

      // A name too long is refused with the sentence, and the field keeps what she typed.
      const form = section.locator('form.agent-token-form');
      const long = 'x'.repeat(80) + 'y';
      await form.locator('input[name="name"]').fill(long);
      await Promise.all([waitForPath(page, agentPath), form.getByRole('button', { name: 'Make agent token' }).click()]);
      await expectTextContains(page.locator('p.notice.refused'), 'Give the token a name of at most 80 characters, saying where it is used');
      await expectValue(section.locator('form.agent-token-form input[name="name"]'), long);
      await expectCount(section.locator('table.agent-tokens-list'), 0, 'nothing was made');

      await section.locator('form.agent-token-form input[name="name"]').fill('Claude Desktop on the support laptop');
      await Promise.all([waitForPath(page, agentPath), section.getByRole('button', { name: 'Make agent token' }).click()]);
      await expectTextContains(page.locator('p.notice.ok').first(), 'Made the agent token “Claude Desktop on the support laptop”');
      const secretBox = section.locator('p.agent-token-secret code.secret');
      await expectCount(secretBox, 1);
      const token = (await secretBox.textContent()).trim();
      assert.match(token, /^agt_[0-9a-f]{64}$/);
      await expectTextContains(section.locator('table.agent-tokens-list'), 'Claude Desktop on the support laptop');

      // Never again: a reload lists the token, not its secret.
      await page.reload();
      if (js) await waitHydrated(page);
      await expectCount(section.locator('p.agent-token-secret'), 0, 'the secret is shown once');
      assert.ok(!(await page.content()).includes(token), 'the secret is nowhere on the page');

      // An outside agent holding it starts a run of the Support Agent, for nobody.
      const started = await startRun(env.baseURL, token);
      assert.equal(started.status, 201, JSON.stringify(started.body));
      assert.equal(started.body.agent_name, 'Support Agent');
      await page.reload();
      if (js) await waitHydrated(page);
      await expectCount(section.locator('table.agent-tokens-list td', { hasText: 'Never' }), 0, 'its use is shown');

      // Revoked, it stops at once.
      const revoke = section.getByRole('button', { name: /^Revoke #\d+$/ });
      await expectCount(revoke, 1);
      await Promise.all([waitForPath(page, agentPath), revoke.click()]);
      await expectTextContains(page.locator('p.notice.ok').first(), 'no longer works');
      await expectTextContains(section.locator('table.agent-tokens-list'), 'Revoked ');
      await expectCount(section.getByRole('button', { name: /^Revoke #\d+$/ }), 0);
      const after = await startRun(env.baseURL, token);
      assert.equal(after.status, 401);
      assert.equal(after.body.message, 'That agent token is unknown or revoked');

      // Alice does not own the agent: no tokens, no form.
      const alice = (await env.signedInPage('alice', js)).page;
      await alice.goto(agentPath);
      if (js) await waitHydrated(alice);
      await expectCount(alice.locator('section.agent-tokens'), 0, 'only the owner or an admin sees its tokens');
      await expectCount(alice.locator('section.runs-unasked'), 1);
      env.assertNoBrowserErrors();
    });
  });
}
