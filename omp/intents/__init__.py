"""What a user message asks for in so many words: a standing rule, a forget request, a correction.

This is the grammar behind the explicit pass (docs/reviewer-answer-schema.md) and the packet's priorities (§4.3). It
is pure text analysis with no model (regular expressions, and one Aho-Corasick sweep for its
first look: omp.substrings): it must run on every review.

How a message is read, in three steps:

1. **What the user said, not what they pasted.** Fenced code blocks, indented code, quoted lines
   (`> …`), code-comment lines (`# …`, `// …`), log lines, and a pasted file or page (what
   follows an introduction such as "Here is the README:" or a Markdown heading) are dropped.
   Inline code and quoted strings ("…", “…”, «…», 「…」) stay in the rule's text but are masked
   while looking for a trigger, so a request *inside* them is never seen.
2. **Sentences.** Lines, then sentences (`.!?` and `。！？`), list markers ("2.", "-") removed.
3. **A trigger, and what may stand before it.** Each language has a few trigger families:
   *remember* ("remember that", "keep in mind", "make a note that", "merk dir", "记住",
   "覚えておいて", "recuerda que", "n'oublie pas que", "lembre-se de que" …), *from now on*
   ("going forward", "from here on out", "ab sofort", "从现在开始", "今後", "a partir de ahora",
   "désormais", "de agora em diante" …), *always / never* ("always", "don't ever", "we never",
   "immer", "永远不要", "必ず", "siempre", "jamais", "nunca" …) and *forget* ("forget that",
   "vergiss", "忘掉", "olvida", "oublie", "esqueça" …). A trigger counts only when what precedes
   it in the sentence is courtesy or a label ("Thanks.", "Quick note:", "please", "ok,"), a polite
   ask ("could you please", "make sure you", "I want you to"), a subject that states a team rule
   ("we", "you should"), or a condition, which is then kept in the rule ("If the build fails on
   CI, always …"). "It always fails" or "I never said that" are therefore not rules.

Then two filters: a **question** is not a request ("do you remember what the error was?"),
unless it is a polite ask ("could you please remember that CI runs on Node 20?"); a **one-off**
instruction is not a standing rule: it names this answer, this run, the next question, "for
now" (in each language).

The rule keeps the user's own words, untranslated: the trigger of the *remember* and *from now
on* families is cut from its start ("From now on, sign every commit" → "Sign every commit");
*always/never* keep their word; conditions and subjects stay.

The package, one job a module, each importing only those above it:

- `request`: the `Request` the grammar returns;
- `phrases`: the phrase tables, per language (fillers, polite asks, conditions, the trigger
  families, questions, one-off scope, jokes, reported speech);
- `spoken`: what the user said (step 1), the sentences (step 2), lists the user introduces;
- `wording`: the small text operations the others share (a rule's text tidied, courtesy cut,
  rule-like, imperative, question);
- `conventions`: a convention stated without a standing word ("for commit messages use …"),
  an uncertain reading the grammar asks when it finds no trigger;
- `grammar`: one sentence → its request (step 3, and the two filters), the rule's text cut;
- `messages`: a whole message → its requests (the first look, a huge message's head and tail,
  requests pointing back at an earlier sentence);
- `checks`: corrections, and one sentence judged for the packet and the note gate;
- `standing`: structure and scope around the grammar (role-play, templates, standing words);
- `pl_ru`: Polish and Russian.
"""
