//! `store::cards::kept` on SQLite, expanded here, with the two pieces SQLite writes its own way: a
//! card made or updated with a read first (the transaction began IMMEDIATE, so nothing races it),
//! and the cards for a question read with one placeholder per term.

crate::store::cards::kept::kept_store!();

async fn upsert_in(conn: &mut Conn, c: &NewCard) -> Result<Card, StoreError> {
    let existing: Option<(i64, String)> = sqlx::query_as(
        "SELECT id, fields FROM cards WHERE connector_id = ? AND kind = ? AND record_id = ? AND read_with = ? \
         AND COALESCE(read_as, 0) = ?",
    )
    .bind(c.connector)
    .bind(&c.kind)
    .bind(&c.record_id)
    .bind(c.read_with.as_str())
    .bind(c.read_as.map(|p| p.0).unwrap_or(0))
    .fetch_optional(&mut *conn)
    .await
    .or_backend()?;
    let id = match existing {
        Some((id, stored)) => {
            let stored: Vec<CardField> = serde_json::from_str(&stored).map_err(|_| bad("card fields"))?;
            let after = after_read(&stored, c);
            sqlx::query(
                "UPDATE cards SET tool = ?, version = ?, fields = ?, not_returned = ?, label_when_read = ?, \
                 open_work = ?, read_at = ? WHERE id = ?",
            )
            .bind(&c.tool)
            .bind(&c.version)
            .bind(to_json(&after.fields))
            .bind(to_json(&after.not_returned))
            .bind(c.label_when_read.as_str())
            .bind(i64::from(after.open_work))
            .bind(c.read_at)
            .bind(id)
            .execute(&mut *conn)
            .await
            .or_backend()?;
            if after.fields != stored {
                super::terms::write_terms(conn, id, &c.record_id, &after.fields, after.open_work).await?;
            }
            id
        }
        None => {
            let after = after_read(&[], c);
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO cards (connector_id, tool, kind, record_id, version, fields, not_returned, read_with, \
                 read_as, label_when_read, open_work, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
                 RETURNING id",
            )
            .bind(c.connector)
            .bind(&c.tool)
            .bind(&c.kind)
            .bind(&c.record_id)
            .bind(&c.version)
            .bind(to_json(&after.fields))
            .bind(to_json(&after.not_returned))
            .bind(c.read_with.as_str())
            .bind(c.read_as.map(|p| p.0))
            .bind(c.label_when_read.as_str())
            .bind(i64::from(after.open_work))
            .bind(c.read_at)
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            super::terms::write_terms(conn, id, &c.record_id, &after.fields, after.open_work).await?;
            id
        }
    };
    card_in(conn, id).await?.ok_or_else(|| StoreError::NotFound(format!("card {id}")))
}

async fn card_in(conn: &mut Conn, id: i64) -> Result<Option<Card>, StoreError> {
    let row = sqlx::query(&format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = ?"))
        .bind(id)
        .fetch_optional(conn)
        .await
        .or_backend()?;
    row.as_ref().map(card_from).transpose()
}

/// The cards a question may name or pad with, each with the person's use.
async fn kept_for_question(
    store: &ThisStore,
    person: PersonId,
    terms: &[String],
    pad_below: u32,
) -> Result<Vec<KeptForQuestion>, StoreError> {
    // The named cards first, once, from the person's own terms (`use_terms`): a probe per
    // term of the question. The cards that may pad only when few are named: the pinned ones by
    // their index, the open-work ones by their term. Then each of those cards with its use, so
    // a run reads a few dozen rows, not all 300.
    let named = if terms.is_empty() {
        "SELECT NULL AS card_id WHERE 0".to_string()
    } else {
        format!(
            "SELECT DISTINCT card_id FROM use_terms WHERE person_id = ? AND term IN ({})",
            vec!["?"; terms.len()].join(", ")
        )
    };
    let cols = CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "WITH n AS ({named}), k AS (SELECT card_id, max(named) AS named FROM (\
         SELECT card_id, 1 AS named FROM n \
         UNION ALL SELECT card_id, 0 FROM use_terms WHERE person_id = ? AND term = ? \
         AND (SELECT count(*) FROM n) < ? \
         UNION ALL SELECT card_id, 0 FROM card_uses WHERE person_id = ? AND pinned \
         AND (SELECT count(*) FROM n) < ?) GROUP BY card_id) \
         SELECT {cols}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use, k.named FROM k \
         JOIN card_uses u ON u.person_id = ? AND u.card_id = k.card_id JOIN cards c ON c.id = k.card_id"
    );
    let mut q = sqlx::query(&sql);
    if !terms.is_empty() {
        q = q.bind(person.0);
        for t in terms {
            q = q.bind(t);
        }
    }
    let rows = q
        .bind(person.0)
        .bind(OPEN_WORK_TERM)
        .bind(i64::from(pad_below))
        .bind(person.0)
        .bind(i64::from(pad_below))
        .bind(person.0)
        .fetch_all(store.pool())
        .await
        .or_backend()?;
    let mut kept = rows
        .iter()
        .map(|r| Ok(KeptForQuestion { card: card_from(r)?, usage: use_from(r)?, named: r.get::<i64, _>("named") != 0 }))
        .collect::<Result<Vec<_>, StoreError>>()?;
    // Ordered here rather than by SQLite's sorter, which copies each wide row once more.
    kept.sort_by_key(|k| k.card.id);
    Ok(kept)
}
