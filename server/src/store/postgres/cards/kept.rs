//! `store::cards::kept` on PostgreSQL, expanded here, with the two pieces only PostgreSQL can write
//! so: a card made or updated under its identity's conflict target, and the cards for a question
//! read with its terms as one array.

crate::store::cards::kept::kept_store!();

async fn upsert_in(conn: &mut Conn, c: &NewCard) -> Result<Card, StoreError> {
    // The stored fields are read under a row lock, so two reads of one record meet them one
    // after the other (`after_read` keeps what a read left out). When no card exists yet, the
    // insert's conflict target is the expression index `cards_identity`: of two first reads
    // racing, the second inserts nothing and goes round once more, finding the first's card.
    for _ in 0..2 {
        let existing: Option<(i64, String)> = sqlx::query_as(
            "SELECT id, fields FROM cards WHERE connector_id = $1 AND kind = $2 AND record_id = $3 \
             AND read_with = $4 AND COALESCE(read_as, 0) = $5 FOR UPDATE",
        )
        .bind(c.connector)
        .bind(&c.kind)
        .bind(&c.record_id)
        .bind(c.read_with.as_str())
        .bind(c.read_as.map(|p| p.0).unwrap_or(0))
        .fetch_optional(&mut *conn)
        .await
        .or_backend()?;
        let row = match existing {
            Some((id, stored)) => {
                let stored: Vec<CardField> = serde_json::from_str(&stored).map_err(|_| bad("card fields"))?;
                let after = after_read(&stored, c);
                // `read_as` is part of the identity, so it never changes.
                sqlx::query(&format!(
                    "UPDATE cards SET tool = $1, version = $2, fields = $3, not_returned = $4, \
                     label_when_read = $5, open_work = $6, read_at = $7 WHERE id = $8 RETURNING {CARD_COLUMNS}"
                ))
                .bind(&c.tool)
                .bind(&c.version)
                .bind(to_json(&after.fields))
                .bind(to_json(&after.not_returned))
                .bind(c.label_when_read.as_str())
                .bind(after.open_work)
                .bind(c.read_at)
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            }
            None => {
                let after = after_read(&[], c);
                sqlx::query(&format!(
                    "INSERT INTO cards (connector_id, tool, kind, record_id, version, fields, not_returned, \
                     read_with, read_as, label_when_read, open_work, read_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                     ON CONFLICT (connector_id, kind, record_id, read_with, (COALESCE(read_as, 0))) DO NOTHING \
                     RETURNING {CARD_COLUMNS}"
                ))
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
                .bind(after.open_work)
                .bind(c.read_at)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            }
        };
        if let Some(row) = row {
            let card = card_from(&row)?;
            super::terms::write_terms(conn, card.id, &card.record_id, &card.fields, card.open_work).await?;
            return Ok(card);
        }
    }
    Err(StoreError::Backend(format!("card {} {} kept by neither insert nor update", c.kind, c.record_id)))
}

/// The cards a question may name or pad with, each with the person's use: the named cards from the
/// person's own terms, the ones that may pad only when fewer than `pad_below` are named.
async fn kept_for_question(
    store: &ThisStore,
    person: PersonId,
    terms: &[String],
    pad_below: u32,
) -> Result<Vec<KeptForQuestion>, StoreError> {
    // The question's terms go as one array, so the statement is the same whatever their number.
    let rows = sqlx::query(&format!(
        "WITH n AS (SELECT DISTINCT card_id FROM use_terms WHERE person_id = $1 AND term = ANY($2)), \
         k AS (SELECT card_id, bool_or(named) AS named FROM (\
         SELECT card_id, true AS named FROM n \
         UNION ALL SELECT card_id, false FROM use_terms WHERE person_id = $1 AND term = $4 \
         AND (SELECT count(*) FROM n) < $3 \
         UNION ALL SELECT card_id, false FROM card_uses WHERE person_id = $1 AND pinned \
         AND (SELECT count(*) FROM n) < $3) e GROUP BY card_id) \
         SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use, k.named FROM k \
         JOIN card_uses u ON u.person_id = $1 AND u.card_id = k.card_id JOIN cards c ON c.id = k.card_id \
         ORDER BY c.id",
        joined_card_columns()
    ))
    .bind(person.0)
    .bind(terms)
    .bind(i64::from(pad_below))
    .bind(OPEN_WORK_TERM)
    .fetch_all(store.pool())
    .await
    .or_backend()?;
    rows.iter()
        .map(|r| Ok(KeptForQuestion { card: card_from(r)?, usage: use_from(r)?, named: r.get("named") }))
        .collect()
}
