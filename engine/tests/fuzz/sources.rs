//! What a connector answers: its records and its tool listings.

use super::*;

// ---- Connector replies and tool listings ---------------------------------------------------------

fn shape_of(record: &Map<String, Value>) -> RecordShape {
    RecordShape {
        connector: 1,
        tool: "list_leads".into(),
        kind: "lead".into(),
        id_field: "id".into(),
        version_field: Some("updated_at".into()),
        fields: record.keys().map(|k| ShapeField::new(k.clone(), k == "notes")).collect(),
        get_tool: "get_lead".into(),
        confirmed: true,
    }
}

/// A connector's answers of any shape: a draft keeps only fields the sample has, keeping a record
/// needs an id, and a listing or a field list reads or is refused.
#[test]
fn fuzz_connector_replies() {
    let tools = vec!["list_leads".to_string(), "get_lead".to_string()];
    let record = prop::collection::vec((json_key(), json_value()), 0..8)
        .prop_map(|kv| Value::Object(kv.into_iter().collect()))
        .boxed();
    let sample = prop_oneof![
        1 => json_value(),
        2 => record.clone(),
        2 => prop::collection::vec(record, 0..3).prop_map(|r| json!({ "records": r })),
    ];
    let draft_reply = prop_oneof![
        1 => text(),
        2 => (json_key(), json_key(), prop::option::of(json_key()), prop::collection::vec((json_key(), any::<bool>()), 0..5))
            .prop_flat_map(|(kind, id_field, version_field, fields)| {
                let fields: Vec<Value> = fields.into_iter().map(|(name, free_text)| json!({"name": name, "free_text": free_text})).collect();
                as_reply(json!({"kind": kind, "id_field": id_field, "version_field": version_field, "fields": fields}))
            }),
    ];
    let listing = prop_oneof![
        json_value(),
        prop::collection::vec((json_key(), text(), json_key(), any::<bool>(), json_value()), 0..4).prop_map(|tools| {
            Value::from(
                tools
                    .into_iter()
                    .map(
                        |(n, d, a, b, p)| json!({"name": n, "description": d, "access": a, "bulk": b, "parameters": p}),
                    )
                    .collect::<Vec<_>>(),
            )
        }),
    ];
    let input = (sample, draft_reply, listing, text());
    fuzz("connector replies", input, |(sample, reply, listing, fields_text)| {
        let first = draft::first_record(&sample).cloned();
        if let Some(shape) = draft::draft_by_rules(1, "list_leads", &tools, &sample) {
            let record = first.clone().expect("a draft comes from a record");
            prop_assert!(record.contains_key(&shape.id_field));
            prop_assert!(shape.fields.iter().all(|f| record.contains_key(&f.name) && f.name != shape.id_field));
        }
        if let Some(shape) = draft::read_model_draft(&reply, 1, "list_leads", &tools, &sample) {
            let record = first.clone().expect("a draft comes from a record");
            prop_assert!(record.contains_key(&shape.id_field) && !shape.fields.is_empty());
            prop_assert!(shape.fields.iter().all(|f| record.contains_key(&f.name)));
            prop_assert!(shape.version_field.iter().all(|v| record.contains_key(v)));
        }
        let _ = draft::draft_prompt("list_leads", &sample);
        if let Some(record) = &first {
            let shape = shape_of(record);
            let kept =
                keep_fields(&shape, &sample.get("records").and_then(|r| r.get(0)).cloned().unwrap_or(sample.clone()));
            let id = record.get("id").map(|v| {
                v.as_str().map_or_else(|| if v.is_null() { String::new() } else { v.to_string() }, str::to_string)
            });
            prop_assert_eq!(kept.is_some(), id.is_some_and(|i| !i.is_empty()));
            if let Some(kept) = kept {
                prop_assert_eq!(kept.fields.len() + kept.missing.len(), shape.fields.len());
            }
        }
        // A listing reads as the server reads it, or is refused; what reads writes back the same.
        if let Ok(tools) = serde_json::from_value::<Vec<ToolInfo>>(listing) {
            let again: Vec<ToolInfo> = serde_json::from_value(serde_json::to_value(&tools).unwrap()).unwrap();
            prop_assert_eq!(again, tools);
        }
        if let Ok(fields) = parse_shape_fields(&fields_text) {
            prop_assert!(fields.iter().all(|f| !f.name.is_empty() && f.name == f.name.trim()));
        }
        Ok(())
    });
}
