//! The demo model as the nightly job's model: from each quoted run that asked the agent to
//! remember something, a personal lesson in those words and a core line suggested from them; and
//! from shared work (a schedule's or a trigger's run, for nobody), a team lesson proposed for the
//! lead to accept, saying what the agent does for the team unasked and where its answers are. Any
//! other run teaches nothing. The job decides what of this it may use.

use serde_json::json;

/// One quoted item of the job's user message: its id, its source and its text.
pub(super) struct Quoted<'a> {
    pub(super) id: &'a str,
    pub(super) source: &'a str,
    pub(super) text: &'a str,
}

fn attribute<'a>(open: &'a str, name: &str) -> &'a str {
    let key = format!("{name}=\"");
    open.find(&key).map(|i| &open[i + key.len()..]).and_then(|v| v.split('"').next()).unwrap_or("")
}

pub(super) fn quoted(user: &str) -> Vec<Quoted<'_>> {
    let mut out = Vec::new();
    let mut rest = user;
    while let Some(start) = rest.find("<data ") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else { break };
        let open = &after[..open_end];
        let inner = &after[open_end + 1..];
        let close = inner.find("</data>").unwrap_or(inner.len());
        out.push(Quoted { id: attribute(open, "id"), source: attribute(open, "source"), text: &inner[..close] });
        rest = &inner[close..];
    }
    out
}

/// "Remember: X" or "Remember for the team: X", as the person asked it.
fn to_remember(question: &str) -> Option<(&'static str, String)> {
    let q = question.trim();
    let (core, rest) = if let Some(r) = q.strip_prefix("Remember for the team:") {
        ("team", r)
    } else {
        ("role", q.strip_prefix("Remember:")?)
    };
    let fact = rest.trim();
    let mut chars = fact.chars();
    let first = chars.next()?;
    Some((core, first.to_uppercase().chain(chars).collect()))
}

/// The team lesson a run for nobody proposes: what its agent does for the team unasked, in its
/// standing instruction's words, and where the answers are. One a standing instruction and agent.
fn shared_lesson(agent: &str, instruction: &str) -> Option<String> {
    let instruction = instruction.trim().trim_end_matches('.');
    let mut chars = instruction.chars();
    let first = chars.next()?;
    let what: String = first.to_lowercase().chain(chars).collect();
    Some(format!(
        "The {agent} is asked to {what} when it runs unasked for the team; its latest answer is in its thread, which \
         the team's lead reads."
    ))
}

/// The job's answer, as JSON text.
pub(super) fn reply(user: &str) -> String {
    let items = quoted(user);
    if user.starts_with("The shared work of ") {
        let mut lessons: Vec<serde_json::Value> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for run in items.iter().filter(|q| q.source != "kept lesson") {
            let Ok(id) = run.id.parse::<i64>() else { continue };
            let Some(question) = run.text.lines().find_map(|l| l.strip_prefix("Question: ")) else { continue };
            // A trigger's run answers what another system posted, once: no routine of the team's.
            if run.text.contains("posted to your trigger") {
                continue;
            }
            let Some(text) = shared_lesson(run.source, question) else { continue };
            // A team lesson already kept, or one this reply already proposes, is not proposed again.
            if items.iter().any(|q| q.source == "kept lesson" && q.text.trim() == text) {
                continue;
            }
            match seen.iter().position(|t| *t == text) {
                Some(i) => {
                    if let Some(runs) = lessons[i]["runs"].as_array_mut() {
                        runs.push(json!(id));
                    }
                }
                None => {
                    seen.push(text.clone());
                    lessons.push(json!({"text": text, "scope": "team", "runs": [id]}));
                }
            }
        }
        return json!({"lessons": lessons, "confirms": [], "core_lines": []}).to_string();
    }
    let kept: Vec<&str> = items.iter().filter(|q| q.source == "kept lesson").map(|q| q.text.trim()).collect();
    let mut lessons = Vec::new();
    let mut confirms = Vec::new();
    let mut core_lines = Vec::new();
    for run in items.iter().filter(|q| q.source != "kept lesson") {
        let Ok(id) = run.id.parse::<i64>() else { continue };
        let Some(question) = run.text.lines().find_map(|l| l.strip_prefix("Question: ")) else { continue };
        let Some((core, fact)) = to_remember(question) else { continue };
        match items.iter().find(|q| q.source == "kept lesson" && q.text.trim() == fact) {
            Some(same) => confirms.push(json!({"lesson": same.id.parse::<i64>().unwrap_or(0), "runs": [id]})),
            None if !kept.contains(&fact.as_str()) => {
                lessons.push(json!({"text": fact, "scope": "personal", "runs": [id]}));
                core_lines.push(json!({"core": core, "line": fact, "why": format!("Asked to be remembered in run {id}."), "runs": [id]}));
            }
            None => {}
        }
    }
    json!({"lessons": lessons, "confirms": confirms, "core_lines": core_lines}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::learning::nightly::prompt::{nightly_prompt, parse_reply, RunText};
    use engine::learning::nightly::work::WorkKind;
    use engine::runs::RunId;

    #[test]
    fn shared_work_proposes_one_team_lesson_for_a_routine_and_none_for_a_triggers_post() {
        let posted = engine::runs::schedules::fire::trigger_question(
            engine::runs::schedules::fire::TRIGGER_INSTRUCTION,
            "{\"ticket\": \"T-1042\"}",
        );
        let user = nightly_prompt(
            "Sue Park",
            WorkKind::Shared,
            &[
                run(7, "Summarise the open escalated tickets"),
                run(8, "Summarise the open escalated tickets"),
                run(9, &posted),
            ],
            &[],
        );
        let r = parse_reply(&reply(&user)).expect("the job reads it");
        assert_eq!(r.lessons.len(), 1, "{:?}", r.lessons);
        assert_eq!(
            r.lessons[0].text,
            "The Support Agent is asked to summarise the open escalated tickets when it runs unasked for the team; \
             its latest answer is in its thread, which the team's lead reads."
        );
        assert_eq!((r.lessons[0].scope.as_str(), r.lessons[0].runs.as_slice()), ("team", &[7, 8][..]));
        // Shared work proposes for the team only: no personal lesson, no core line.
        assert!(r.core_lines.is_empty() && r.confirms.is_empty());
    }

    fn run(id: i64, question: &str) -> RunText {
        RunText {
            id: RunId(id),
            agent: "Support Agent".into(),
            age: "1 h ago".into(),
            question: question.into(),
            steps: vec![],
            answer: "Noted.".into(),
        }
    }

    #[test]
    fn a_run_that_asked_to_remember_becomes_a_lesson_and_a_core_line_and_others_teach_nothing() {
        let user = nightly_prompt(
            "Sue Park",
            WorkKind::Personal,
            &[
                run(7, "Remember: refunds over $500 need the team lead's approval before they are promised."),
                run(8, "Where is ticket T-1042?"),
                run(9, "Remember for the team: quote prices in INR first, then USD."),
            ],
            &[],
        );
        let r = parse_reply(&reply(&user)).expect("the job reads it");
        assert_eq!(r.lessons.len(), 2);
        assert_eq!(r.lessons[0].text, "Refunds over $500 need the team lead's approval before they are promised.");
        assert_eq!((r.lessons[0].scope.as_str(), r.lessons[0].runs.as_slice()), ("personal", &[7][..]));
        assert_eq!(r.core_lines.len(), 2);
        assert_eq!((r.core_lines[0].core.as_str(), r.core_lines[1].core.as_str()), ("role", "team"));
        assert_eq!(r.core_lines[1].line, "Quote prices in INR first, then USD.");
        assert!(r.confirms.is_empty());
    }
}
