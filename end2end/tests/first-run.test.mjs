// Issue 11: an organisation sets Engram up on its own, from `engram serve` on an empty database.
// A new admin sets up the company, adds a team and a person through an invite link; that person
// signs in and sees Profile → Memory; the admin makes them the team's lead, adds a connector and an
// agent, and gives the agent the connector's toolset. Each run has its own empty server, since a
// company is set up once.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  expectCount, expectText, expectTextContains, jsLabel, launchBrowser, MARK_WASM_READY, startServer, trackPageLoads, waitForPath, waitHydrated,
  withServerLog,
} from './helpers.mjs';

const ADMIN = { name: 'Grace Hopper', email: 'grace@northwind.example', password: 'navy compilers 1952' };
const PERSON = { name: 'Sam Rivera', email: 'sam@northwind.example', password: 'tickets all day long' };
const SOURCE_KEY = 'northwind-desk-key';

/** A connected source system as the connector protocol describes it: one read tool, one company key. */
function startSource() {
  const server = http.createServer((req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${SOURCE_KEY}`) {
      return reply(401, { error: 'unauthorized', message: 'That key is not known here.' });
    }
    if (req.method === 'GET' && req.url === '/tools') {
      return reply(200, {
        tools: [{
          name: 'get_ticket',
          description: 'Reads one support ticket by its id.',
          access: 'read',
          bulk: false,
          parameters: { id: { type: 'string', required: true, description: "The ticket's id, such as T-1." } },
        }],
      });
    }
    if (req.method === 'POST' && req.url === '/tools/get_ticket') {
      return reply(200, { result: { id: 'T-1', subject: 'Printer offline', status: 'open', updated_at: '2026-12-01T08:00:00.000Z' } });
    }
    return reply(404, { error: 'unknown_tool', message: 'There is no such tool.' });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** The form whose submit button says `button`. */
const formWith = (page, button) => page.locator('form', { has: page.getByRole('button', { name: button, exact: true }) });

/** Submits by clicking `button` and waits for the page that follows to be at `pathname`. */
async function submit(page, button, pathname, js) {
  await page.getByRole('button', { name: button, exact: true }).click();
  if (pathname) await waitForPath(page, pathname);
  if (js) await waitHydrated(page);
}

for (const js of [true, false]) {
  describe(`setting up a new organisation (${jsLabel(js)})`, () => {
    let browser;
    const errors = [];
    before(async () => { browser = await launchBrowser(); });
    after(async () => { if (browser) await browser.close(); });

    const context = async (baseURL) => {
      const ctx = await browser.newContext({ baseURL, javaScriptEnabled: js });
      ctx.setDefaultTimeout(30_000);
      if (js) await ctx.addInitScript(MARK_WASM_READY);
      trackPageLoads(ctx);
      ctx.on('page', (page) => {
        page.on('pageerror', (e) => errors.push(`${page.url()}: uncaught ${e.message}`));
      });
      return ctx;
    };

    test(`from an empty database to a team, a person and an agent with a toolset (${jsLabel(js)})`, { timeout: 120_000 }, async () => {
      const server = await startServer({ command: 'serve' });
      const source = await startSource();
      try {
        await withServerLog(server, async () => {
          // Every page leads to Set up Engram.
          const adminCtx = await context(server.baseURL);
          const admin = await adminCtx.newPage();
          await admin.goto('/company/people');
          await waitForPath(admin, '/setup');
          if (js) await waitHydrated(admin);
          await expectText(admin.locator('main h1'), 'Set up Engram');
          const setup = formWith(admin, 'Set up Engram');
          await setup.locator('input[name=company]').fill('Northwind');
          await setup.locator('select[name=zone]').selectOption('Asia/Kolkata');
          await setup.locator('input[name=name]').fill(ADMIN.name);
          await setup.locator('input[name=email]').fill(ADMIN.email);
          await setup.locator('input[name=password]').fill(ADMIN.password);
          await submit(admin, 'Set up Engram', '/company/people', js);
          await expectText(admin.locator('main h1'), 'People');

          // A team.
          await admin.goto('/company/teams');
          if (js) await waitHydrated(admin);
          await formWith(admin, 'New team').locator('input[name=name]').fill('Support Desk');
          await admin.getByRole('button', { name: 'New team', exact: true }).click();
          await admin.waitForURL((url) => /^\/company\/teams\/\d+$/.test(url.pathname));
          if (js) await waitHydrated(admin);
          const teamPath = new URL(admin.url()).pathname;
          await expectTextContains(admin.locator('main'), 'Added the team Support Desk');

          // A person, through a one-time invite link.
          await admin.goto('/company/people');
          if (js) await waitHydrated(admin);
          const add = formWith(admin, 'Add person');
          await add.locator('input[name=name]').fill(PERSON.name);
          await add.locator('input[name=email]').fill(PERSON.email);
          await add.locator('select[name=main_team]').selectOption({ label: 'Support Desk' });
          await submit(admin, 'Add person', '/company/people', js);
          const linkBox = admin.getByLabel(`${PERSON.name}'s invite link`);
          await expectCount(linkBox, 1, 'the invite link is shown once');
          const link = await linkBox.inputValue();
          assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/invite\/inv_[0-9a-f]{64}$/);

          // The person sets their password with it, is signed in and sees their memory.
          const personCtx = await context(server.baseURL);
          const person = await personCtx.newPage();
          await person.goto(link);
          if (js) await waitHydrated(person);
          await expectText(person.locator('main h1'), 'Set your password');
          // Two different passwords are refused on the invite page itself, and the refusal, made
          // without a session, makes none: its sentence comes back in a sealed cookie of its own.
          const invitePath = new URL(link).pathname;
          await person.locator('input[name=password]').fill(PERSON.password);
          await person.locator('input[name=repeat]').fill(`${PERSON.password}x`);
          await submit(person, 'Set password and sign in', invitePath, js);
          await expectTextContains(person.locator('main'), 'The two passwords differ; type the same one twice');
          const cookieNames = (await personCtx.cookies()).map((c) => c.name);
          assert.ok(!cookieNames.includes('engram_session'), `a refused invite makes no session: ${cookieNames}`);
          await person.locator('input[name=password]').fill(PERSON.password);
          await person.locator('input[name=repeat]').fill(PERSON.password);
          await submit(person, 'Set password and sign in', '/profile/memory', js);
          await expectText(person.locator('main h1'), 'Memory');
          // The link works once.
          const again = await (await context(server.baseURL)).newPage();
          await again.goto(link);
          await expectTextContains(again.locator('main'), 'already used');

          // The admin makes them the team's lead.
          await admin.goto(teamPath);
          if (js) await waitHydrated(admin);
          // Lead is a search field, never a list of everyone: with JavaScript it offers the people
          // whose name starts with what is typed (each as their email); without, the name typed is
          // found when the form is sent.
          const lead = formWith(admin, 'Set lead').locator('input[name=lead]');
          if (js) {
            await lead.pressSequentially('Sam R');
            await expectCount(admin.locator(`datalist option[value="${PERSON.email}"]`), 1, 'the list offers Sam');
            await lead.fill(PERSON.email);
          } else {
            await lead.fill(PERSON.name);
          }
          await submit(admin, 'Set lead', teamPath, js);
          await expectTextContains(admin.locator('main'), `Lead: ${PERSON.name}`);

          // A connector to the team's source system: its toolset.
          await admin.goto('/company/connectors');
          if (js) await waitHydrated(admin);
          const conn = formWith(admin, 'Add');
          await conn.locator('input[name=name]').fill('Northwind Desk');
          await conn.locator('input[name=base_url]').fill(source.url);
          await conn.locator('input[name=company_key]').fill(SOURCE_KEY);
          await admin.getByRole('button', { name: 'Add', exact: true }).click();
          await admin.waitForURL((url) => /^\/company\/connectors\/\d+$/.test(url.pathname));
          if (js) await waitHydrated(admin);
          await expectText(admin.locator('main h1'), 'Connector: Northwind Desk');

          // An agent, given that toolset.
          await admin.goto('/company/agents');
          if (js) await waitHydrated(admin);
          const agent = formWith(admin, 'Add agent');
          await agent.locator('input[name=name]').fill('Support Agent');
          await agent.locator('input[name=owner]').fill(js ? ADMIN.email : ADMIN.name);
          await agent.locator('textarea[name=description]').fill('Answers questions about support tickets.');
          await admin.getByRole('button', { name: 'Add agent', exact: true }).click();
          await admin.waitForURL((url) => /^\/company\/agents\/\d+$/.test(url.pathname));
          if (js) await waitHydrated(admin);
          const agentPath = new URL(admin.url()).pathname;
          await expectText(admin.locator('main h1'), 'Support Agent');
          await admin.getByRole('checkbox', { name: 'Northwind Desk' }).check();
          await submit(admin, 'Save toolsets', agentPath, js);
          await admin.reload();
          if (js) await waitHydrated(admin);
          assert.equal(await admin.getByRole('checkbox', { name: 'Northwind Desk' }).isChecked(), true, 'the agent holds the toolset');

          assert.deepEqual(errors, [], 'the browser reported no errors');
        });
      } finally {
        await source.stop();
        await server.stop();
      }
    });
  });
}
