#!/usr/bin/env python3
"""Writes recall_set.json beside this script: the labelled set the recall bench reads.

50 people, each with 6 lessons a question is about and 50 distractors, and 6 questions (one per
style) whose answer is one of the 6. A distractor names the same account with another key, or the
same key for another account, or neither, so neither the account nor the key alone finds the
lesson. Fixed seed: the same file every time. Run: python3 engine/benches/recall/make_set.py
"""
import json
import os
import random

random.seed(20261205)

# Each key: how a lesson writes it (joined as people join words in systems), its words, and a
# synonym of one of its words as people ask it.
KEYS = [
    ("billing-tier", ["billing", "tier"], ("tier", "level"), ["Enterprise", "Growth", "Starter"]),
    ("seat_count", ["seat", "count"], ("seat", "licence"), ["240", "55", "1,200"]),
    ("RenewalDate", ["renewal", "date"], ("date", "day"), ["31 March", "1 July", "15 October"]),
    ("payment-terms", ["payment", "terms"], ("payment", "invoice"), ["net 45", "net 30", "net 60"]),
    ("support_plan", ["support", "plan"], ("plan", "package"), ["Premium", "Standard", "24x7"]),
    ("PrimaryContact", ["primary", "contact"], ("contact", "person"), ["Priya Raman", "Dana Brooks", "Ola Berg"]),
    ("escalation-path", ["escalation", "path"], ("path", "route"), ["the CFO", "the account lead", "legal"]),
    ("preferred_channel", ["preferred", "channel"], ("channel", "medium"), ["phone", "email", "Slack"]),
    ("DataResidency", ["data", "residency"], ("residency", "region"), ["EU", "India", "US"]),
    ("sso-provider", ["sso", "provider"], ("provider", "vendor"), ["Okta", "Entra ID", "Google"]),
    ("discount_rate", ["discount", "rate"], ("rate", "percentage"), ["12%", "8%", "20%"]),
    ("ContractLength", ["contract", "length"], ("length", "term"), ["3 years", "1 year", "2 years"]),
    ("onboarding-owner", ["onboarding", "owner"], ("owner", "lead"), ["Sam Ortiz", "Mei Lin", "Ravi Iyer"]),
    ("churn_risk", ["churn", "risk"], ("risk", "danger"), ["high", "low", "medium"]),
    ("InvoiceCadence", ["invoice", "cadence"], ("cadence", "frequency"), ["quarterly", "monthly", "yearly"]),
    ("uptime-sla", ["uptime", "sla"], ("uptime", "availability"), ["99.9%", "99.5%", "99.95%"]),
    ("po_number", ["po", "number"], ("number", "reference"), ["PO-7731", "PO-1044", "PO-9902"]),
    ("ApiRateLimit", ["api", "rate", "limit"], ("limit", "cap"), ["600 a minute", "100 a second", "10k a day"]),
    ("tax-id", ["tax", "id"], ("tax", "vat"), ["GB123456789", "29ABCDE1234F1Z5", "DE811907980"]),
    ("shipping_address", ["shipping", "address"], ("shipping", "delivery"), ["Hebbal, Bengaluru", "Leeds", "Lyon"]),
]

ACCOUNTS = [
    "Acme", "Kaveri Foods", "Litware", "Müller GmbH", "Contoso", "Fabrikam", "Northwind", "Tailspin",
    "Wingtip", "Adatum", "Proseware", "Hebbal Biotech", "Blue Yonder", "Zaragoza Textil", "Nordlicht",
    "Café Olé", "Coho Winery", "Lucerne Publishing", "Margie's Travel", "Alpine Ski House",
]

# Lessons that share only common words with a question: about the customer, the account, the team.
COMMON = [
    "The customer success team meets every Monday",
    "Account reviews happen at the end of each quarter",
    "Our team answers customer emails within a day",
    "The current account owner changes after a renewal",
    "Customer calls are logged in the CRM the same day",
    "New accounts get a welcome pack from the team",
]

STYLES = ["joiner", "plural", "order", "typo", "synonym", "common"]


def typo(word):
    """One letter changed, dropped or two swapped, in a word of five letters or more."""
    i = random.randrange(1, len(word) - 1)
    kind = random.choice(["swap", "drop", "change"])
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "drop":
        return word[:i] + word[i + 1:]
    c = random.choice([x for x in "aeiourstln" if x != word[i]])
    return word[:i] + c + word[i + 1:]


def plural(word):
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def question(style, account, words, synonym):
    phrase = " ".join(words)
    if style == "joiner":
        return random.choice([f"What is {account}'s {phrase}?", f"{account} {phrase}?", f"Which {phrase} does {account} have?"])
    if style == "plural":
        return f"What are the {' '.join(words[:-1] + [plural(words[-1])])} for {account}?"
    if style == "order":
        rest = " ".join(reversed(words))
        return random.choice([f"For {account}, {rest}?", f"{rest} at {account}: what is it?"])
    if style == "typo":
        long = [w for w in words if len(w) >= 5]
        if long:
            w = random.choice(long)
            phrase = " ".join(typo(w) if x == w else x for x in words)
        else:
            # No word long enough to misspell: misspell the account's name instead.
            name = max(account.split(), key=len)
            account = account.replace(name, typo(name)) if len(name) >= 5 else account
        return f"what's the {phrase} of {account}"
    if style == "synonym":
        old, new = synonym
        phrase = " ".join(new if w == old else w for w in words)
        return f"Do we know the {phrase} for {account}?"
    # Common words with the distractors besides the account and the key.
    return f"For the customer account {account}, what does the team have as the current {phrase}?"


people = []
# Each person's six lessons asked about, by position after the shuffle: the questions in other words
# below ask about them again.
about = []
for p in range(50):
    accounts = random.sample(ACCOUNTS, 8)
    keys = random.sample(KEYS, 10)
    lessons = []
    targets = []
    # Six lessons the questions are about: one key each, for one of the first three accounts.
    for k in range(6):
        written, words, synonym, values = keys[k]
        account = accounts[k % 3]
        text = random.choice([
            f"The {written} for {account} is {random.choice(values)}",
            f"{account}: {written} = {random.choice(values)}",
            f"{account}'s {written} is {random.choice(values)} since the last renewal call",
        ])
        lessons.append(text)
        targets.append((len(lessons) - 1, account, words, synonym))
    # Fifty distractors: the same keys for other accounts, the same accounts with other keys, and
    # lessons of common words alone.
    while len(lessons) < 56:
        kind = random.random()
        if kind < 0.4:
            written, words, synonym, values = random.choice(keys[:6])
            account = random.choice(accounts[3:])
        elif kind < 0.8:
            written, words, synonym, values = random.choice(keys[6:])
            account = random.choice(accounts)
        else:
            text = random.choice(COMMON) + f" ({random.choice(accounts[3:])})"
            if text not in lessons:
                lessons.append(text)
            continue
        text = f"The {written} for {account} is {random.choice(values)}"
        if text not in lessons:
            lessons.append(text)
    order = list(range(len(lessons)))
    random.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    shuffled = [lessons[old] for old in order]
    questions = []
    for style, (index, account, words, synonym) in zip(STYLES, targets):
        questions.append({"style": style, "question": question(style, account, words, synonym), "expect": position[index]})
    people.append({"lessons": shuffled, "questions": questions})
    about.append([(position[index], account, words) for index, account, words, _ in targets])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recall_set.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"people": people}, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"{sum(len(p['questions']) for p in people)} questions, {sum(len(p['lessons']) for p in people)} lessons -> {out}")

# The questions in other words: each of a person's six lessons asked about without the key's words or
# their synonym, as someone who never saw the field would ask. Words alone find these only through
# the account's name; they are what an embedding model is for. A set of their own, so the figures
# of the set above stay comparable from run to run; made with a generator of their own, so the set
# above is the same file it was.
OTHER_WORDS = {
    "billing tier": ["Which plan is {a} paying for?", "How much of the product has {a} bought?"],
    "seat count": ["How many users can {a} have?", "How many people at {a} may log in?"],
    "renewal date": ["When does {a}'s contract come up again?", "When must {a} sign again?"],
    "payment terms": ["How long does {a} have to pay us?", "When is {a}'s money due after we bill them?"],
    "support plan": ["What help does {a} get when something breaks?", "How quickly do we answer {a} when things go wrong?"],
    "primary contact": ["Who do we talk to at {a}?", "Who is our main person at {a}?"],
    "escalation path": ["Who do we go to when {a} has a serious problem?", "Who hears about it when {a} is unhappy?"],
    "preferred channel": ["How does {a} like to be reached?", "Should we call or write to {a}?"],
    "data residency": ["Where must {a}'s data be stored?", "In which country do {a}'s records live?"],
    "sso provider": ["Which login system does {a} sign in with?", "How do {a}'s staff log in to us?"],
    "discount rate": ["How much off list price does {a} get?", "What reduction did we give {a}?"],
    "contract length": ["How many years is {a} signed up for?", "How long is {a} committed to us?"],
    "onboarding owner": ["Who is setting {a} up?", "Who is getting {a} started with us?"],
    "churn risk": ["Is {a} likely to leave us?", "Might we lose {a}?"],
    "invoice cadence": ["How often do we bill {a}?", "How frequently does {a} get a bill?"],
    "uptime sla": ["How much downtime did we promise {a} at most?", "What service level did we guarantee {a}?"],
    "po number": ["Which purchase order should {a}'s bills quote?", "What order reference goes on {a}'s bills?"],
    "api rate limit": ["How many requests can {a} send us?", "How fast may {a} call our interface?"],
    "tax id": ["What is {a}'s VAT registration?", "Which registration number do we put on {a}'s bills for tax?"],
    "shipping address": ["Where do we send {a}'s parcels?", "Where do {a}'s deliveries go?"],
}
other = random.Random(20261206)
asked = []
for person, targets in zip(people, about):
    for position, account, words in targets:
        text = other.choice(OTHER_WORDS[" ".join(words)]).format(a=account)
        asked.append({"person": len(asked) // 6, "question": text, "expect": position})
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "other_words.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"questions": asked}, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"{len(asked)} questions in other words -> {out}")
