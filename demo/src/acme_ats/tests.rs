use super::*;
use reqwest::Client;

const COMPANY: &str = "acme-ats-company-key";
const ADMIN: &str = "acme-ats-admin";

struct Ats {
    url: String,
    http: Client,
}

impl Ats {
    async fn start() -> Self {
        let (url, _task) = spawn(AtsConfig::demo(), 0).await.expect("bind");
        Self { url, http: Client::new() }
    }

    async fn call(&self, key: Option<&str>, acting_for: Option<&str>, tool: &str, args: Value) -> (u16, Value) {
        let mut req = self.http.post(format!("{}/tools/{tool}", self.url)).json(&json!({"arguments": args}));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        if let Some(email) = acting_for {
            req = req.header("X-Acting-For", email);
        }
        let resp = req.send().await.expect("send");
        (resp.status().as_u16(), resp.json().await.expect("json body"))
    }

    async fn company(&self, tool: &str, args: Value) -> (u16, Value) {
        self.call(Some(COMPANY), None, tool, args).await
    }

    async fn ids(&self, key: &str, acting_for: Option<&str>, tool: &str, args: Value) -> Vec<String> {
        let (status, body) = self.call(Some(key), acting_for, tool, args).await;
        assert_eq!(status, 200, "{body}");
        body["result"]["records"]
            .as_array()
            .expect("records")
            .iter()
            .map(|r| r["id"].as_str().expect("id").to_string())
            .collect()
    }

    async fn calls(&self) -> u64 {
        let resp = self.http.get(format!("{}/admin/calls", self.url)).header("X-Admin-Key", ADMIN).send().await;
        let body: Value = resp.expect("send").json().await.expect("json");
        body["tool_calls"].as_u64().expect("tool_calls")
    }
}

fn assert_error(status: u16, body: &Value, want_status: u16, code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["error"], code, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

#[tokio::test]
async fn lists_fifteen_tools_with_their_flags_and_each_one_answers() {
    let ats = Ats::start().await;
    let resp = ats.http.get(format!("{}/tools", ats.url)).bearer_auth(COMPANY).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 15);
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(tool["reference"] == true, crate::acme_lists::is_list(name), "{name}");
        let writes = name.starts_with("update_");
        let bulk = name.starts_with("list_") || name.starts_with("search_");
        assert_eq!(tool["access"], if writes { "write" } else { "read" }, "{name}");
        assert_eq!(tool["bulk"], bulk, "{name}");
        assert!(!tool["description"].as_str().unwrap().is_empty(), "{name}");
        let params = tool["parameters"].as_object().unwrap();
        if name.starts_with("get_") || writes {
            assert_eq!(params["id"]["required"], true, "{name}");
            assert_eq!(params["id"]["type"], "string", "{name}");
        }
        // Every declared tool is dispatched: with no arguments it either answers or asks for one.
        let (status, answer) = ats.company(name, json!({})).await;
        assert!(status == 200 || answer["error"] == "invalid_arguments", "{name}: {answer}");
    }
    let unauthenticated = ats.http.get(format!("{}/tools", ats.url)).send().await.unwrap();
    assert_eq!(unauthenticated.status(), 401);
}

#[tokio::test]
async fn company_key_gets_a_record_and_a_missing_one_is_not_found() {
    let ats = Ats::start().await;
    let (status, body) = ats.company("get_lead", json!({"id": "L-1001"})).await;
    assert_eq!(status, 200, "{body}");
    let lead = &body["result"];
    assert_eq!(lead["company"], "Nimbus Logistics");
    assert_eq!(lead["stage"], "Proposal");
    assert_eq!(lead["owner"], "alice@acme.example");
    assert!(DateTime::parse_from_rfc3339(lead["updated_at"].as_str().unwrap()).is_ok());

    let (status, body) = ats.company("get_ticket", json!({"id": "T-4411"})).await;
    assert_eq!((status, &body["result"]["status"]), (200, &json!("escalated")));
    let (status, body) = ats.company("get_contact", json!({"id": "C-2001"})).await;
    assert_eq!((status, &body["result"]["name"]), (200, &json!("Priya Raman")));

    let (status, body) = ats.company("get_lead", json!({"id": "L-9999"})).await;
    assert_error(status, &body, 404, "not_found");
    let (status, body) = ats.company("no_such_tool", json!({})).await;
    assert_error(status, &body, 404, "unknown_tool");
}

#[tokio::test]
async fn refuses_missing_and_unknown_keys() {
    let ats = Ats::start().await;
    let (status, body) = ats.call(None, None, "get_lead", json!({"id": "L-1001"})).await;
    assert_error(status, &body, 401, "unauthorized");
    let (status, body) = ats.call(Some("not-a-key"), None, "get_lead", json!({"id": "L-1001"})).await;
    assert_error(status, &body, 401, "unauthorized");
}

#[tokio::test]
async fn acting_for_a_person_filters_lists_and_forbids_gets() {
    let ats = Ats::start().await;
    let alice = Some("alice@acme.example");
    let leads = ats.ids(COMPANY, alice, "list_leads", json!({})).await;
    assert_eq!(leads, ["L-1001", "L-1002", "L-1003", "L-1004", "L-1009"]);
    assert_eq!(ats.ids(COMPANY, None, "list_leads", json!({})).await.len(), 9);
    // Asking for someone else's leads while acting for alice finds none, rather than failing.
    assert!(ats.ids(COMPANY, alice, "list_leads", json!({"owner": "sam@acme.example"})).await.is_empty());
    assert!(ats.ids(COMPANY, alice, "list_tickets", json!({})).await.is_empty());
    assert_eq!(ats.ids(COMPANY, alice, "list_contacts", json!({})).await.len(), 6);
    assert_eq!(ats.ids(COMPANY, alice, "search_leads", json!({"query": "bengaluru"})).await.len(), 4);

    let (status, body) = ats.call(Some(COMPANY), alice, "get_lead", json!({"id": "L-1005"})).await;
    assert_error(status, &body, 403, "forbidden");
    let (status, body) = ats.call(Some(COMPANY), alice, "update_lead", json!({"id": "L-1005", "notes": "x"})).await;
    assert_error(status, &body, 403, "forbidden");
    let (status, _) = ats.call(Some(COMPANY), alice, "get_lead", json!({"id": "L-1001"})).await;
    assert_eq!(status, 200);

    // Today's follow-ups for alice: the day is read back rather than recomputed, so midnight cannot race.
    let (_, l1001) = ats.company("get_lead", json!({"id": "L-1001"})).await;
    let today = l1001["result"]["next_follow_up"].clone();
    let due = ats.ids(COMPANY, alice, "list_leads", json!({"follow_up_on": today})).await;
    assert_eq!(due, ["L-1001", "L-1002"]);
    let open = ats.ids(COMPANY, alice, "list_leads", json!({"stage": "proposal"})).await;
    assert_eq!(open, ["L-1001"]);
}

#[tokio::test]
async fn a_persons_own_key_acts_for_that_person() {
    let ats = Ats::start().await;
    let sue = "acme-ats-key-sue";
    assert_eq!(
        ats.ids(sue, None, "list_tickets", json!({})).await,
        ats.ids(COMPANY, Some("sue@acme.example"), "list_tickets", json!({})).await
    );
    assert_eq!(ats.ids(sue, None, "list_tickets", json!({})).await, ["T-4411", "T-4414", "T-4416"]);
    assert_eq!(ats.ids(sue, None, "list_tickets", json!({"status": "escalated"})).await, ["T-4411"]);
    assert_eq!(ats.ids("acme-ats-key-sam", None, "list_leads", json!({})).await.len(), 3);

    let (status, body) = ats.call(Some(sue), None, "get_ticket", json!({"id": "T-4412"})).await;
    assert_error(status, &body, 403, "forbidden");
    let (status, body) = ats.call(Some(sue), Some("bob@acme.example"), "list_tickets", json!({})).await;
    assert_error(status, &body, 403, "forbidden");
    let (status, body) = ats.call(Some(sue), None, "update_ticket", json!({"id": "T-4414", "status": "closed"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["status"], "closed");
}

#[tokio::test]
async fn update_lead_changes_the_record_and_its_updated_at() {
    let ats = Ats::start().await;
    let (_, before) = ats.company("get_lead", json!({"id": "L-1002"})).await;
    let before_at = DateTime::parse_from_rfc3339(before["result"]["updated_at"].as_str().unwrap()).unwrap();
    let args = json!({"id": "L-1002", "stage": "Proposal", "value_inr": 700000, "next_follow_up": "2031-01-15"});
    let (status, body) = ats.call(Some("acme-ats-key-alice"), None, "update_lead", args).await;
    assert_eq!(status, 200, "{body}");
    let (_, after) = ats.company("get_lead", json!({"id": "L-1002"})).await;
    assert_eq!(after, body);
    let lead = &after["result"];
    assert_eq!((&lead["stage"], &lead["value_inr"]), (&json!("Proposal"), &json!(700000)));
    assert_eq!(lead["next_follow_up"], "2031-01-15");
    assert_eq!(lead["notes"], before["result"]["notes"]);
    let after_at = DateTime::parse_from_rfc3339(lead["updated_at"].as_str().unwrap()).unwrap();
    assert!(after_at > before_at, "{before_at} then {after_at}");
}

#[tokio::test]
async fn admin_put_creates_and_replaces_and_delete_removes() {
    let ats = Ats::start().await;
    let contact = json!({"id": "C-2002", "name": "Arjun Hegde", "email": "arjun@kaveri.example",
        "phone": "+91 98860 00000", "company": "Kaveri Foods", "title": "Group CFO", "updated_at": "2001-01-01T00:00:00Z"});
    let url = format!("{}/admin/contacts/C-2002", ats.url);
    let refused = ats.http.put(&url).json(&contact).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let replaced = ats.http.put(&url).header("X-Admin-Key", ADMIN).json(&contact).send().await.unwrap();
    assert_eq!(replaced.status(), 200);
    let (status, body) = ats.company("get_contact", json!({"id": "C-2002"})).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["title"], "Group CFO");
    assert_ne!(body["result"]["updated_at"], "2001-01-01T00:00:00.000Z", "the server dates the change");

    let mismatched = ats.http.put(format!("{}/admin/contacts/C-7777", ats.url)).header("X-Admin-Key", ADMIN);
    let resp = mismatched.json(&contact).send().await.unwrap();
    assert_eq!(resp.status(), 400);

    let mut ticket = ats.company("get_ticket", json!({"id": "T-4412"})).await.1["result"].take();
    ticket["id"] = json!("T-5000");
    let created = ats.http.put(format!("{}/admin/tickets/T-5000", ats.url)).header("X-Admin-Key", ADMIN).json(&ticket);
    assert_eq!(created.send().await.unwrap().status(), 201);
    assert_eq!(ats.company("get_ticket", json!({"id": "T-5000"})).await.0, 200);

    let delete = || ats.http.delete(format!("{}/admin/leads/L-1003", ats.url)).header("X-Admin-Key", ADMIN);
    assert_eq!(delete().send().await.unwrap().status(), 204);
    let (status, body) = ats.company("get_lead", json!({"id": "L-1003"})).await;
    assert_error(status, &body, 404, "not_found");
    let again = delete().send().await.unwrap();
    assert_eq!(again.status(), 404);
    assert_eq!(again.json::<Value>().await.unwrap()["error"], "not_found");
}

#[tokio::test]
async fn invalid_arguments_name_the_argument() {
    let ats = Ats::start().await;
    let cases = [
        ("get_lead", json!({"idd": "L-1001"}), "idd"),
        ("get_lead", json!({}), "id"),
        ("search_tickets", json!({"query": 7}), "query"),
        ("list_leads", json!({"limit": 501}), "limit"),
        ("list_leads", json!({"follow_up_on": "tomorrow"}), "follow_up_on"),
        ("list_tickets", json!({"status": "pending"}), "status"),
        ("update_lead", json!({"id": "L-1001", "value_inr": -5}), "value_inr"),
        ("update_contact", json!({"id": "C-2001", "email": "nobody"}), "email"),
        ("update_ticket", json!({"id": "T-4411"}), "status"),
    ];
    for (tool, args, named) in cases {
        let (status, body) = ats.company(tool, args.clone()).await;
        assert_error(status, &body, 400, "invalid_arguments");
        assert!(body["message"].as_str().unwrap().contains(named), "{tool} {args}: {body}");
    }
}

#[tokio::test]
async fn counts_every_tool_call_received() {
    let ats = Ats::start().await;
    assert_eq!(ats.calls().await, 0);
    ats.company("get_lead", json!({"id": "L-1001"})).await;
    ats.company("no_such_tool", json!({})).await;
    ats.call(None, None, "list_leads", json!({})).await;
    assert_eq!(ats.calls().await, 3);
    let refused = ats.http.get(format!("{}/admin/calls", ats.url)).send().await.unwrap();
    assert_eq!(refused.status(), 401);
}
