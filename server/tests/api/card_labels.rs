//! What people read of a card: each field under its label, numbers, amounts and dates in the
//! company's locale, which an admin sets on Memory settings and relabels on the connector's
//! shape. Stored values never change. Against the running server and a real Acme ATS.

use crate::cards::{card_of, lead, person, spawn_cards};
use crate::helpers::*;
use serde_json::Value;

/// The text of the card line for `record` on `/profile/memory`.
fn record_line(html: &str, record: &str) -> String {
    let start = html.find(&format!("<strong>{record}</strong>")).unwrap_or_else(|| panic!("{record} shown: {html}"));
    let end = html[start..].find("</p>").expect("the line ends") + start;
    plain(&html[start..end]).replace("<strong>", "").replace("</strong>", "").replace("<!-- -->", "")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_read_under_labels_in_the_companys_locale_which_an_admin_changes_and_values_stay_stored() {
    let c = spawn_cards().await;
    let app = &c.app;
    let alice = person(app, "alice").await;
    let l2 = card_of(app, &alice, "L-1002").await.expect("L-1002 is kept for Alice");
    let value: u64 = lead(&c.ats, "L-1002").await["value_inr"].as_u64().expect("a value");
    assert_eq!(value, 640_000, "the demo's deal");
    let browser = app.sign_in("alice").await;

    // The demo company writes as in India.
    let (_, html) = app.page(&browser, "/profile/memory").await;
    let line = record_line(&html, "L-1002");
    assert!(line.contains("Contact: Arjun Hegde"), "{line}");
    assert!(line.contains("Value: ₹6,40,000"), "{line}");
    assert!(!line.contains("value_inr") && !line.contains("contact_name"), "no raw field names: {line}");
    let (_, cards) = app.get_json(&browser, "/api/memory/cards").await;
    let card = cards.as_array().unwrap().iter().find(|c| c["record_id"] == "L-1002").unwrap().clone();
    let shown = |c: &Value, name: &str| c["shown"].as_array().unwrap().iter().find(|f| f["name"] == name).cloned();
    assert_eq!(shown(&card, "value_inr").unwrap()["value"], "₹6,40,000");
    assert_eq!(shown(&card, "value_inr").unwrap()["label"], "Value");

    // A non-admin cannot change the locale; a locale that is none is refused and kept as typed.
    let r = app.form_post(&browser, "/fn/set_company_locale", &[("locale", "de-DE")]).await;
    assert!(r.status().is_redirection());
    assert_eq!(app.store.company().await.unwrap().unwrap().locale.as_str(), "en-IN");
    let ada = app.sign_in("ada").await;
    let r = app.form_post(&ada, "/fn/set_company_locale", &[("locale", "klingon")]).await;
    assert!(r.status().is_redirection());
    let (_, page) = app.page(&ada, "/company/memory").await;
    assert!(page.contains("klingon is not a locale name, such as en-IN or en-US"), "{page}");
    assert!(page.contains(r#"value="klingon""#), "the typed locale is kept");
    assert_eq!(app.store.company().await.unwrap().unwrap().locale.as_str(), "en-IN", "nothing changed");

    // The admin chooses German: the same stored value now reads the German way.
    let r = app.form_post(&ada, "/fn/set_company_locale", &[("locale", "de_DE")]).await;
    assert!(r.status().is_redirection());
    let (_, page) = app.page(&ada, "/company/memory").await;
    assert!(page.contains("Saved. Values now read as in de-DE: 1.850.000\u{a0}₹"), "{page}");
    let (_, html) = app.page(&browser, "/profile/memory").await;
    assert!(record_line(&html, "L-1002").contains("Value: 640.000\u{a0}₹"), "{}", record_line(&html, "L-1002"));

    // The admin relabels the field on the connector's shape, and says it is a plain number.
    let card = app.store.card(l2).await.unwrap().unwrap();
    let shape = app.store.shapes(c.connector).await.unwrap().into_iter().find(|s| s.tool == card.tool).unwrap();
    let mut lines: Vec<String> = shape
        .fields
        .iter()
        .map(|f| format!("{}: {}", f.name, if f.free_text { "free text" } else { "structured" }))
        .collect();
    let at = lines.iter().position(|l| l.starts_with("value_inr:")).unwrap();
    lines[at] = "value_inr: structured | Deal value (INR) | number".into();
    let form = [
        ("id", c.connector.to_string()),
        ("tool", shape.tool.clone()),
        ("kind", shape.kind.clone()),
        ("id_field", shape.id_field.clone()),
        ("version_field", shape.version_field.clone().unwrap_or_default()),
        ("get_tool", shape.get_tool.clone()),
        ("fields", lines.join("\n")),
    ];
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = app.form_post(&ada, "/fn/confirm_shape", &fields).await;
    assert!(r.status().is_redirection());
    let (_, sheet) = app.page(&ada, &format!("/company/connectors/{}", c.connector)).await;
    assert!(sheet.contains("value_inr: structured | Deal value (INR) | number"), "the sheet shows the label chosen");
    assert!(sheet.contains("contact_name: structured | Contact | text"), "and the drafts of the rest");
    let (_, html) = app.page(&browser, "/profile/memory").await;
    assert!(record_line(&html, "L-1002").contains("Deal value (INR): 640.000"), "{}", record_line(&html, "L-1002"));

    // Through every change the card holds the source's own value.
    let stored = app.store.card(l2).await.unwrap().unwrap();
    let kept = stored.fields.iter().find(|f| f.name == "value_inr").unwrap();
    assert_eq!(kept.value, "640000");
}
