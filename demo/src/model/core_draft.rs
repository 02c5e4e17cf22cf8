//! The demo model as Draft from what exists' model: the quoted playbooks and notes become how the
//! role works, and the company's agreed knowledge its words and rules, each line once.

use super::nightly::quoted;

pub fn reply(user: &str) -> String {
    let role = user.strip_prefix("The ").and_then(|r| r.split(" role's").next()).unwrap_or("This role");
    let (mut works, mut agreed, mut seen) = (Vec::new(), Vec::new(), std::collections::HashSet::new());
    for q in quoted(user) {
        let to = if q.id.starts_with("lesson:") { &mut agreed } else { &mut works };
        for line in q.text.lines().map(|l| l.trim().trim_start_matches(['-', '*']).trim()).filter(|l| !l.is_empty()) {
            if seen.insert(line.to_lowercase()) {
                to.push(format!("- {line}"));
            }
        }
    }
    let mut out = Vec::new();
    if !works.is_empty() {
        out.push(format!("How {role} works:"));
        out.extend(works);
    }
    if !agreed.is_empty() {
        if !out.is_empty() {
            out.push(String::new());
        }
        out.push("Words and rules the company agreed:".into());
        out.extend(agreed);
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playbooks_and_notes_say_how_the_role_works_and_knowledge_what_was_agreed() {
        let user = "The Sales role's company core, from what exists:\n\
            <data id=\"playbook:1\" source=\"the Sales Assistant's playbook\" age=\"as saved\">Quote in INR first.\n- Log each call.</data>\n\
            <data id=\"connector:1\" source=\"Acme ATS's notes for agents\" age=\"as saved\">Quote in INR first.</data>\n\
            <data id=\"lesson:7\" source=\"company knowledge\" age=\"as saved\">ACV means annual contract value.</data>\n";
        assert_eq!(
            reply(user),
            "How Sales works:\n- Quote in INR first.\n- Log each call.\n\nWords and rules the company agreed:\n- ACV means annual contract value."
        );
    }
}
