//! Reads of one record racing through the HTTP layer: each read keeps its card in one
//! transaction, so however many land at once the person keeps one card of the record.

use crate::cards::{card_of, person, spawn_cards};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_pin_backs_of_one_record_keep_one_card() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let card = card_of(&c.app, &alice, "L-1002").await.unwrap();
    c.app.memory.reads.forget(&alice, card).await.unwrap();
    let browser = c.app.sign_in("alice").await;

    // Eight pins back at once: each reads the record from the source as her and keeps it.
    let posts: Vec<_> = (0..8)
        .map(|_| {
            let (browser, url, origin) = (browser.clone(), c.app.url("/fn/pin_back"), c.app.base.clone());
            tokio::spawn(async move {
                browser
                    .post(url)
                    .header("accept", "text/html")
                    .header("origin", origin)
                    .header("sec-fetch-site", "same-origin")
                    .form(&[("connector", "1"), ("kind", "lead"), ("record_id", "L-1002")])
                    .send()
                    .await
                    .map(|r| r.status())
            })
        })
        .collect();
    for p in posts {
        assert!(p.await.unwrap().expect("an answer").is_redirection());
    }

    let uses = c.app.store.all_uses().await.unwrap();
    let hers: Vec<_> = uses.iter().filter(|(card, u)| u.person == alice.id && card.record_id == "L-1002").collect();
    assert_eq!(hers.len(), 1, "one card of the record, kept once: {hers:?}");
    assert!(hers[0].1.pinned, "pinned back");
    let cards = c.app.memory.mine.my_cards(&alice).await.unwrap();
    assert_eq!(cards.iter().filter(|v| v.record_id == "L-1002").count(), 1);
    assert!(c.app.memory.reads.forgotten(&alice).await.unwrap().is_empty(), "the forget is closed");
}
