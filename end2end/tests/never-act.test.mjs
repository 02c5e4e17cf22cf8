// Scenario: seed 001's "never act from memory" demo. Alice keeps a private note about Dana Brooks.
// Asked to email Dana straight away, the Sales Assistant plans to send to the remembered address:
// the step is refused with the seed's sentence and nothing waits in her Inbox. Asked to read
// Litware's lead first, it sends to the address it read: the email waits in her Inbox, and once
// she approves it, it reaches the mail service (a stand-in this test starts) and nowhere else.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { expectCount, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

const NOTE = 'Dana Brooks at Litware reads mail at dana@litware.example';
const FROM_MEMORY = 'email Dana that the proposal is ready';
const READ_FIRST = "read Litware's lead, then email Dana that the proposal is ready";
const REFUSAL = 'This uses a remembered value; read the source first';
const ANSWER_TIMEOUT = 20_000;

/** A mail service that keeps what it is handed, as the outbox protocol describes. */
function startMailService() {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/messages') {
        const m = JSON.parse(body);
        received.push(m);
        res.writeHead(201);
        return res.end(JSON.stringify({ accepted: m.id }));
      }
      res.writeHead(404);
      return res.end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}`,
      received,
      stop: () => new Promise((r) => server.close(r)),
    }));
  });
}

/** Asks the Sales Assistant from the Ask page and waits for the run to end. */
async function ask(page, question, js) {
  await page.goto('/ask');
  if (js) await waitHydrated(page);
  await page.locator('select[name=agent]').selectOption({ label: 'Sales Assistant (Sales)' });
  await page.locator('textarea#question').fill(question);
  await Promise.all([
    page.waitForURL((url) => /^\/threads\/\d+$/.test(url.pathname)),
    page.getByRole('button', { name: 'Ask', exact: true }).click(),
  ]);
  if (js) await waitHydrated(page);
  const run = page.locator('section.run').last();
  await run.locator('.answer').waitFor({ timeout: ANSWER_TIMEOUT });
  return run;
}

for (const js of [true, false]) {
  describe(`never acting from memory (${jsLabel(js)})`, () => {
    let mail;
    const env = useEngram(async () => {
      mail = await startMailService();
      return { env: { ENGRAM_OUTBOX_URL: mail.url } };
    });
    after(async () => { if (mail) await mail.stop(); });

    test(`a send from memory is refused; one that read first waits in the Inbox (${jsLabel(js)})`, { timeout: 120_000 }, async () => {
      const { ctx, page } = await env.signedInPage('alice', js);
      // Her private note, kept with her session (POST /api/knowledge takes no token).
      const kept = await ctx.request.post('/api/knowledge', { data: { scope: 'private', text: NOTE } });
      assert.equal(kept.status(), 201, await kept.text());

      // From memory: refused, and the run says so.
      const refused = await ask(page, FROM_MEMORY, js);
      const details = refused.locator('details.steps');
      await details.locator('summary').click();
      await expectTextContains(details, REFUSAL);
      await page.goto('/inbox');
      if (js) await waitHydrated(page);
      await expectTextContains(page.locator('main'), 'Nothing waits for your approval.');

      // Read first: the email waits for her.
      await ask(page, READ_FIRST, js);
      await page.goto('/inbox');
      if (js) await waitHydrated(page);
      const waiting = page.locator('li.email');
      await expectCount(waiting, 1, 'one email waits');
      await expectTextContains(waiting, 'dana@litware.example');
      assert.equal(mail.received.length, 0, 'nothing is sent before she approves');
      await Promise.all([
        waitForPath(page, '/inbox'),
        waiting.getByRole('button', { name: 'Approve', exact: true }).click(),
      ]);
      if (js) await waitHydrated(page);
      await expectTextContains(page.locator('ul.inbox.decided'), 'Sent');
      assert.equal(mail.received.length, 1, 'the mail service got it once');
      assert.equal(mail.received[0].to, 'dana@litware.example');

      env.assertNoBrowserErrors();
    });
  });
}
