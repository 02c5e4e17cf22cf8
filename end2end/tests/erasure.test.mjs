// Scenario: erasing a third party. Alice keeps a lesson with the mobile number of Dana Brooks, a
// customer at Litware, and another about Litware. Ada, an admin, opens Erase a third party from the
// nav, gives the number spelled another way, is asked to tick that it cannot be undone, then erases
// it: the page counts what went and says a source may keep it again, and Alice's lesson is gone
// while the other stays. Alice has no link to the page and is told only an admin may. With
// JavaScript on (the page reads back what will be erased as it is typed) and off.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, expectCount, expectText, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

const ERASURE = '/company/erasure';
const MOBILE = "Dana Brooks' mobile is +1 (415) 555-0142";
const STAYS = 'Litware renews in March';
const SOURCE = "A later read from a source may keep it again: the source is not Engram's to erase.";

async function submit(page, button) {
  await Promise.all([waitForPath(page, ERASURE), button.click()]);
}

for (const js of [true, false]) {
  describe(`erasing a third party (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`an admin erases a number in another spelling, and only what names it goes (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const alice = await env.signedInPage('alice', js);
      for (const text of [MOBILE, STAYS]) {
        const res = await alice.ctx.request.post('/api/knowledge', { data: { scope: 'private', text } });
        assert.equal(res.status(), 201, await res.text());
      }
      await alice.page.goto('/profile/memory');
      if (js) await waitHydrated(alice.page);
      const lessons = alice.page.locator('section.lessons ul.lessons:not(.past) > li .text');
      await expectCount(lessons.filter({ hasText: MOBILE }), 1, 'her lesson names the number');

      // Alice is no admin: no link, and the page says who may.
      await expectCount(alice.page.getByRole('link', { name: 'Erase a third party' }), 0, 'no link for Alice');
      await alice.page.goto(ERASURE);
      if (js) await waitHydrated(alice.page);
      await expectText(alice.page.locator('p.notice.refused'), "Only an admin can erase a third party's address or number");
      await expectCount(alice.page.locator('input[name=value]'), 0, 'no form for Alice');

      const { page } = await env.signedInPage('ada', js);
      // The admin's link stands with the company's pages; where those sit under a Company menu, it opens first.
      const menu = page.locator('details.menu.company > summary');
      if (await menu.count()) await menu.click();
      await Promise.all([waitForPath(page, ERASURE), page.getByRole('link', { name: 'Erase a third party' }).click()]);
      if (js) await waitHydrated(page);
      await expectText(page.locator('main h1'), 'Erase a third party');
      await expectText(page.locator('p.source-note'), SOURCE);

      const value = page.locator('input#erase-value');
      await value.fill('415.555.0142');
      if (js) {
        await expectText(page.locator('p.read-back'), 'Erases every spelling of the phone number ending 4155550142.');
        await value.fill('Dana Brooks');
        await expectTextContains(page.locator('p.read-back'), 'That is neither an email address nor a phone number');
        await value.fill('415.555.0142');
      } else {
        await expectText(page.locator('p.read-back'), '', 'nothing is read back without JavaScript');
      }

      // Not ticked: nothing is erased, and the form starts empty again.
      await submit(page, page.getByRole('button', { name: 'Erase', exact: true }));
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice.refused'), 'Tick “I understand that this cannot be undone” to erase it; nothing was changed.');
      assert.equal(await page.locator('input#erase-value').inputValue(), '', 'the value is not kept for the page');

      await page.locator('input#erase-value').fill('+1 415 555 0142');
      await page.getByLabel('I understand that this cannot be undone').check();
      await submit(page, page.getByRole('button', { name: 'Erase', exact: true }));
      if (js) await waitHydrated(page);
      await expectText(
        page.locator('p.notice.ok'),
        `Removed 0 cards, 0 list snapshots, 1 lesson and 0 who's-who entries naming that phone number. ${SOURCE}`,
      );

      await alice.page.goto('/profile/memory');
      if (js) await waitHydrated(alice.page);
      await expectCount(lessons.filter({ hasText: MOBILE }), 0, 'the lesson naming the number is gone');
      await expectCount(lessons.filter({ hasText: STAYS }), 1, 'the other stays');
      env.assertNoBrowserErrors();
    });
  });
}
