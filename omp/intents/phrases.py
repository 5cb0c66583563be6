"""The phrase tables of the grammar, per language (docs/reviewer-answer-schema.md): what may stand before a trigger,
the trigger families, questions, one-off scope, jokes and reported speech."""

from __future__ import annotations

import re

from omp.intents.request import RequestKind
from omp.lazyre import LazyPattern, lazy

# ---------------------------------------------------------------------------------------------
# 3. triggers

# What may stand before a trigger: courtesy, labels, polite asks, in every language.
_FILLER = (
    r"(?:ok(?:ay)?|so|and|also|please|pls|plz|hey|hi|hello|thanks|thank you|thx|ty|btw|fyi|note|quick note|small note"
    r"|one more thing|one last thing|by the way|important|reminder|heads up|heads-up|psa|oh|ah|alright|all right|great|cool|good"
    r"|just so you know|for your information|as a reminder|just a reminder|friendly reminder"
    r"|note to (?:self|you|us|both of us|the team)(?: and (?:you|me|the team))?"
    r"|quick reminder|side note|anyway|anyhow|in any case|oh and|and also|no kidding|seriously|honestly|for real|tbh|to be honest|frankly"
    # Where the rule holds, when it is this project: the rule stays standing ("In this repo we always …").
    r"|in this repo|in this repository|in this project|in this codebase|in our repo|in our project|in our codebase"
    r"|for this repo|for this project|on this project|on this team|in our team|around here"
    r"|perfect|nice|yes|yeah|yep|sure|right|well|and also|just|but|copilot|@copilot|guys|folks|also important"
    r"|no(?=\s*,)|nope|nah|porfa|porfis|xfa|plis|meanwhile|in the meantime|mean while|for now on"
    r"|bitte|danke|übrigens|noch was|wichtig|hinweis|also|und|gut|ok|prima|super"
    r"|por favor|gracias|oye|importante|nota|además|bueno|vale|perfecto|y"
    r"|s'il te plaît|s'il vous plaît|stp|svp|merci|au fait|important|remarque|aussi|bon|parfait|et|d'accord"
    r"|por favor|obrigado|obrigada|valeu|aliás|importante|nota|também|beleza|certo|e"
    r"|好的|好|谢谢|另外|还有|顺便说一下|顺便|对了|注意|请|麻烦|麻烦你|提醒一下|重要"
    r"|謝謝|還有|順便說一下|順便|對了|請|麻煩|麻煩你|提醒一下"  # the same in traditional characters (Taiwan, Hong Kong)
    r"|ありがとう|ありがとうございます|あと|それと|ちなみに|注意|重要|了解|では|じゃあ)"
)
_FILLERS = rf"(?:¿|¡|(?:{_FILLER})(?![A-Za-zÀ-ÿ'’])\s*[,:;!.，：、！。—–-]?\s*)*"
_LABEL = r"(?:[^\s:：]{1,20}(?:\s+[^\s:：]{1,20}){0,3}\s*[:：]\s*)?"  # "Quick note:", "重要："
_POLITE = (
    r"(?:(?:would|do) you mind\s+|(?:can|could|shall) we(?: please)?\s+|(?:could|can|would|will) you(?: please| kindly| also)?\s+|please\s+|kindly\s+|i(?:'d| would) like you to\s+"
    r"|i want you to\s+|i need you to\s+|you (?:should|must|need to|have to|gotta|always have to)\s+"
    r"|let(?:'|’)?s\s+|let us\s+"  # "let's make it a rule that …", "let's always pin versions"
    r"|it(?:'s| is) (?:important|crucial|essential|vital|key|a must) (?:that |to )(?:you |we )?"
    r"|make sure(?: that)?(?: you| to| we)?\s+|be sure to\s+|ensure(?: that)? you\s+|try to\s+"
    r"|(?:kannst|könntest|kann|könnt|kannst) (?:du|ihr)(?:\s+(?:bitte|dir|mir|euch|mal|auch))*\s+|(?:können|könnten) Sie(?:\s+(?:bitte|sich|mal|auch))*\s+"
    r"|(?:puedes|podrías|puede|podría)(?: por favor)?\s+|(?:peux|pourrais)-tu(?: s'il te plaît)?\s+"
    r"|(?:pouvez|pourriez)-vous\s+|merci de\s+|veuillez\s+|(?:você )?(?:pode|poderia)(?: por favor)?\s+"
    r"|il faut(?: que (?:tu|vous|l'on|on))?\s+|(?:tu dois|vous devez|on doit|nous devons)\s+"
    r"|(?:hay que|tienes que|tenéis que|tenés que|tenes que|debes|debés|debemos|es necesario|se debe)\s+"
    r"|(?:é preciso|é necessário|tem que|temos que|você deve|deve-se|precisa|precisamos)\s+"
    r"|(?:du musst|ihr müsst|man muss|man sollte|wir müssen|wir sollten|du solltest)\s+"
    r"|(?:你)?(?:能不能|能否|可不可以|可以|能)(?:帮我)?\s*)"
)
_CONDITION = (
    r"(?:(?:if|when|whenever|before|after|unless|once|while|every time|each time|in case|on)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:wenn|falls|bevor|nachdem|sobald|jedes mal,? wenn)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:si|cuando|antes de|después de|cada vez que|siempre que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:si|s'|quand|lorsque|avant de|après|chaque fois que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:se|quando|antes de|depois de|sempre que|toda vez que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:如果|要是|假如|每次|当)[^，,。]{1,80}[，,]\s*|[^，,。]{1,80}(?:的时候|之前|以后|后)[，,]\s*"
    r"|[^、。]{1,80}(?:たら|なら|場合は?|時は|ときは|前に|後は)[、,]\s*)"
)
_SUBJECT = (
    r"(?:(?:we|our team|the team|everyone|everybody|all of us)(?: (?:should|must|will|shall|need to|have to|do))?\s+"
    r"|you (?:should|must|shall|need to|have to|will)\s+"
    r"|(?:wir|man|ihr|du|Sie)\s+(?:\w+\s+){0,3}|(?:nosotros|aquí|aqui|nós|a gente|on|nous)\s+(?:\w+\s+){0,3}"
    r"|(?:我们|咱们|你|大家)(?:应该|必须|要)?)"
)

# Family patterns. `rest` is what the rule says when the trigger is cut; `keep` marks families
# whose trigger word stays in the rule.
_REMEMBER = (
    r"(?:remember|remeber|rember|remmber|remembr|rememeber|remebmer|rememnber|remenber|rmember|(?:keep|bear)(?: this| that| these| those| them| it| the following| all (?:of )?this)? in mind|make a (?:mental )?note|take a (?:mental )?note|take note|mental note|note for the future|note for later|note for next time"
    r"|(?:save|keep|store) (?:this|that|it) for (?:later|next time|the future|future sessions|future reference)(?=\s*[:：—–-])"
    r"|(?:(?:one|another|a|the|some|a few|two|three) )?(?:more )?things? to (?:remember|keep in mind|note)(?=\s*[:：—–-])"
    r"|for future reference|memorize|memorise|don't forget|dont forget|don’t forget|do not forget|never forget|note down|write down"
    # "I remind you the main directive that we rely on task-master": the speaker reminds the assistant
    r"|i (?:would like to |'d like to |want to |must |have to )?remind you(?: again| once more)?(?: (?:of|about))?)"
    r"(?P<conn>\s+(?:that|this|to|of|this down|it|the fact that))?"
    r"|(?:merk(?:e)? dir|merken Sie sich|denk(?:e)?(?: bitte)?(?: in zukunft| künftig| immer| bitte)? (?:daran|dran)|behalte(?:n Sie)?(?: das| dies| folgendes)? im (?:Kopf|Hinterkopf)"
    r"|vergiss nicht|vergessen Sie nicht|notier(?:e)? dir|(?:dir |sich |euch )?merken|daran denken|dran denken)(?:\s+bitte)?(?P<conn_de>\s*(?:,\s*)?(?:dass|zu))?"
    r"|(?:te recuerdo|le recuerdo|os recuerdo|recuerda|recuérdalo|recuerde|acuérdate(?: de)?|ten en cuenta|tenga en cuenta|no olvides|no te olvides(?: de)?"
    r"|toma nota(?: de)?|apunta|anota|memoriza|recordar|tener en cuenta|apuntar|anotar|memorizar"
    # the voseo of Argentina and Uruguay: "recordá que …", "acordate de …", "tené en cuenta …"
    r"|recordá|acordate(?: de)?|tené en cuenta|no te olvidés(?: de)?|no olvidés|anotá|apuntá|memorizá)(?P<conn_es>\s+que)?"
    r"|for the record(?=\s*[:,])"
    r"|(?:je te rappelle|je vous rappelle|souviens-toi|souvenez-vous|rappelle-toi|retiens|retenez|n'oublie pas|n'oubliez pas|garde en tête|gardez en tête|pense à|pensez à"
    r"|garde à l'esprit|prends note|prenez note|note bien|mémorise|retenir|noter|te souvenir|vous souvenir|garder en tête|mémoriser)(?P<conn_fr>\s+(?:que|qu'|de|d'))?"
    r"|(?:ricordati|ricorda|ricordatevi|tieni a mente|tieni presente|non dimenticare)(?P<conn_it>\s+(?:che|di))?"  # Italian
    r"|(?:te lembro|lhe lembro|lembre-se|lembra|lembre|não esqueça|não se esqueça|nao esqueca|tenha em mente|tem em mente|anote|guarde|memorize"
    r"|lembrar|anotar|guardar|ter em mente|memorizar)"
    r"(?P<conn_pt>\s+(?:de que|que|de|disso|isso|isto)(?=[\s:,]))?"
    r"|(?:请?记住|请?记得|别忘了|別忘了|不要忘记|不要忘了|记一下|记下来|记下|牢记|请注意以后"
    r"|請?記住|請?記得|不要忘記|記一下|記下來|記下|牢記"
    # "你必须认识到…", "你要知道…": what the assistant is to be aware of, told to "you"
    r"|(?:你|您)(?:必须|必須|一定要|要|得|需要)(?:认识到|認識到|意识到|意識到|知道|清楚|明白))"
    r"|(?:覚えておいて(?:ください|下さい|ね)?|覚えといて|覚えておくこと|覚えて(?:ください|ほしい|おいてほしい)"
    r"|忘れないで(?:ください|ね)?|メモして(?:おいて)?(?:ください)?|心に留めて(?:おいて)?(?:ください)?"
    # "この環境はWindowsなことに留意して": keep in mind
    r"|留意して(?:おいて)?(?:ください|下さい)?|念頭に置いて(?:おいて)?(?:ください|下さい)?|頭に入れて(?:おいて)?(?:ください|下さい)?)"
)
_FROM_NOW = (
    r"(?:from now on|from here on(?: out)?|going forward|moving forward|henceforth|from this point(?: on| forward)?"
    r"|in (?:the )?future|for the future|for next time|as a (?:general )?rule(?: of thumb)?|from today on"
    # "make it a rule that …", "make it a habit to write tests first"
    r"|make (?:it|this|that) (?:a|an|your) (?:\w+ )?(?:rule|habit|convention|standard practice)(?: (?:that|to)(?=\s))?"
    # "Our convention is to name test files *.test.ts", "the rule here is that …", "my preference is …"
    r"|(?:(?:the|our|a) (?:rule|policy|convention)|our (?:standard|practice|habit|preference|way)|my preference)"
    r"(?: here| in this (?:repo|project|team|codebase))? is(?: that| to(?=\s))?"
    # "By default, use TypeScript for new files": what to do unless told otherwise (not "By default the page shows …")
    r"|by default(?=,?\s+(?:please\s+)?(?!(?:it|the|this|that|these|those|they|we|i|he|she|there|all|each|every|no|a|an|our|my|your)\b)[a-z]+\b)"
    # "I've told you multiple times: don't …", "how many times do I have to tell you, …": a correction
    # repeated is a rule the user expects to hold
    r"|(?:i(?:'ve| have)? (?:already )?(?:told|asked) you|how many times (?:do i have to|must i|have i|did i) (?:tell|told|ask|asked|say|said)(?: (?:to )?you)?"
    r"|as i (?:said|told you|asked)(?: you)?)(?: (?:this|that|it))?(?: (?:before|already|multiple times|many times|several times|so many times"
    r"|a (?:hundred|thousand|million) times|again|repeatedly|twice|earlier))*(?=\s*[:,;—–-])"
    r"|(?:new |house |team |general |golden |one )?rule(?: of thumb)?(?: (?:for|in|on) (?:this|our|the) (?:project|repo|repository|codebase|team))?(?=\s*[:：—–-])"
    r"|(?:our |team )?(?:policy|convention)(?=\s*[:：—–-])|(?:standing|permanent) (?:instruction|order|rule|request)s?(?=\s*[:：—–-])|general instructions?(?=\s*[:：—–-])"
    r"|for the rest of (?:this|the|our) (?:project|repo|repository|codebase)|for all future (?:sessions|work|tasks|changes|prs|commits)"
    # "Grundregel:", "Regla general:", "Règle générale :", "Regra geral:", "规定：", "ルール："
    r"|(?:(?:grund|haus|team|faust)regel|regel|für (?:dieses|unser) (?:projekt|repo) gilt|regla(?: general| de oro| de la casa)?"
    r"|norma(?: general)?|règle(?: générale| d'or| de base)?|regra(?: geral| de ouro| básica)?"
    r"|规定|规则|规矩|约定|ルール|規則|決まり)(?=\s*[:：—–-])"
    r"|in (?:all )?(?:future|later|upcoming) sessions"
    # "In all future responses, …", "for all your future answers …", "in every response": the user's
    # way of being answered, the most common standing request of chat users
    r"|(?:in|for|with|on) (?:all (?:of )?)?(?:your |the )?(?:future|subsequent|upcoming) (?:responses?|answers?|replies|outputs?|messages|code|chats?|conversations?)"
    r"|(?:in|for|with) (?:all (?:of )?your|every(?: single)?(?: one of your)?|each(?: of your)?) (?:responses?|answers?|replies|reply)(?: you (?:give|write|send))?"
    r"|ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|für die zukunft|fortan|ab heute"
    r"|starting (?:from )?(?:now|today)(?: on)?|starting now"
    r"|a partir de ahora|de ahora en adelante|de ahora en más|de aquí en más|desde ahora|en adelante|en el futuro|para el futuro|a partir de hoy|de aquí en adelante"
    r"|désormais|dorénavant|à partir de maintenant|à l'avenir|pour l'avenir|à partir d'aujourd'hui|dès maintenant"
    r"|de agora em diante|a partir de agora|daqui (?:para|pra) frente|daqui em diante|no futuro|para o futuro|doravante|a partir de hoje"
    r"|从现在开始|从现在起|从今以后|从今往后|以后|今后|往后|将来|從現在開始|從現在起|從今以後|從今往後|將來"
    r"|今後は?|これからは|次回から(?:は)?|以後|以降は"
    # Italian and Korean, read as far as "from now on" (their other phrasings are not read)
    r"|d'ora in poi|da ora in poi|d'ora in avanti|da adesso in poi|d'ora innanzi|da oggi in poi|in futuro"
    r"|앞으로(?:는)?|이제부터(?:는)?|지금부터(?:는)?)"
)
_ALWAYS = (
    r"(?:always|never|don't ever|dont ever|do not ever|never ever|don't you ever|at all times"
    r"|immer|niemals|nie|keinesfalls|auf keinen fall"
    r"|siempre|nunca|jamás|jamas"
    r"|toujours|jamais|ne jamais|n'\w+ (?:plus )?jamais|ne \w+ (?:plus )?jamais|n'\w+ plus|ne \w+ plus"
    # Italian "non usare mai …" (its "sempre" is Portuguese's, below) and Korean "항상", "절대(로)"
    r"|non \w+ mai|항상|언제나|절대로|절대"
    # Spanish and Portuguese double negation: "No uses nunca var", "Não use nunca var"; "no vuelvas a usar var"
    r"|no \w+ nunca(?: más)?|não \w+ nunca(?: mais)?|no vuelvas a|não volte a|nunca vuelvas a|nunca volte a"
    r"|sempre|nunca|jamais"
    r"|永远不要|永远不|千万不要|千万别|绝对不要|绝不|决不|不要再|别再|一定要|总是|始终|务必|每次都|从不|从来不|一律|一直"
    r"|永遠不要|永遠不|絕對不要|絕不|決不|別再|一定要|總是|始終|務必|從不|從來不"
    # "每次回答都用中文": every time …, do it so (an act follows 都, not what happens: "每次运行都失败")
    # "每个里程碑之后都需要…": after each milestone, do it so
    r"|每(?:次|个|個|一个|一次)[^，,。！？!?]{1,20}?都(?:要|得|必须|需要|(?=用|先|写|寫|加|给我|給我|帮我|幫我|回答|回复|回覆|检查|檢查))"
    r"|常に|いつも|必ず|絶対に|決して|二度と|毎回)"
)
_FORGET = (
    r"(?:forget|stop remembering|no need to remember|you can forget|unlearn|drop the rule)"
    r"(?P<fconn>\s+(?:that|about|the fact that|the rule that|what i said about))?"
    r"|(?:vergiss|vergessen Sie)(?!\s+(?:nicht|bitte nicht))(?P<fconn_de>\s*,?\s*(?:dass|das mit|die regel))?"
    r"|(?:olvida|olvídate de|olvidate de|olvide)(?P<fconn_es>\s+(?:que|lo de|la regla de))?"
    r"|(?:oublie|oubliez)(?P<fconn_fr>\s+(?:que|qu'|la règle))?"
    r"|(?:esqueça|esquece|esqueca)(?P<fconn_pt>\s+(?:que|a regra))?"
    r"|(?:忘掉|忘记|忘了吧|不用再记|不用记)|(?:忘れて(?:ください|下さい)?)"
)
_CJK = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # 4 ms to compile: see _has_cjk


def _has_cjk(text: str) -> bool:
    """Does `text` hold a Chinese or Japanese character? (An ASCII text is told in O(1).)"""
    return not text.isascii() and _CJK.search(text) is not None


_FLAGS = re.I | re.S


def _family(trigger: str) -> LazyPattern:
    # \b does not work next to CJK characters; (?<![^\W\d_]) is "not after a letter" for Latin
    # words and harmless for CJK triggers, which have no letter boundaries. A hyphen joining a
    # word ("an always-on VPN", "never-ending loop", "a remember-me box") makes a compound, not a trigger.
    return lazy(rf"(?P<trigger>(?<![A-Za-zÀ-ÿ0-9_'’-])(?:{trigger})(?:(?<=[^A-Za-zÀ-ÿ])|(?![A-Za-zÀ-ÿ0-9_]))(?![-‐][A-Za-zÀ-ÿ]))", _FLAGS)


_REMEMBER_TRIGGER = _family(_REMEMBER)
_ALWAYS_TRIGGER = _family(_ALWAYS)
_FROM_NOW_TRIGGER = _family(_FROM_NOW)
_TRIGGERS: tuple[tuple[str, LazyPattern], ...] = (
    ("forget", _family(_FORGET)),
    ("remember", _REMEMBER_TRIGGER),
    ("from_now", _FROM_NOW_TRIGGER),
    ("always", _family(_ALWAYS)),
)
_PREFIX_OK = lazy(
    rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>{_CONDITION})?{_FILLERS}(?P<polite>{_POLITE})*(?P<subject>{_SUBJECT})?"
    rf"(?P<polite2>{_POLITE})*(?:also\s+|auch\s+|también\s+|aussi\s+|também\s+|也|还)?$",
    _FLAGS,
)
# A Japanese or Chinese sentence that asks (a request or prohibition form), or a Chinese
# imperative adverb: then "always/never" may stand after the topic.
_CJK_IMPERATIVE = lazy(
    r"(?:ください|下さい|して|しないで|しないこと|すること|禁止|ましょう|てね|でね|るな|ないように)[。！!.]?\s*$"
    r"|^(?:千万|绝对不要|绝对不能|永远不要|一定要|务必|不要再|别再|决不|绝不)")
_JA_POLITE_TAIL = lazy(r"^(?:もらえますか|もらえる|もらえない|くれますか|くれる|くれない|いただけますか|いただけません|ください|下さい|ね|よ|くれ)[かね]?[?？。！!]*$")
# "…, OK?", "…，记住了吗？": a tag that asks for agreement does not make the request a question.
_TAG_QUESTION = lazy(
    r"[,，、]?\s*(?:ok|okay|right|got it|alright|understood|yes|verstanden|klar|ja|vale|entendido|d'accord|compris|entendu"
    r"|beleza|entendeu|certo|combinado|记住了吗|记住了没|好吗|好不好|可以吗|行吗|懂了吗|明白吗|知道了吗|わかった|分かった|いい|覚えた|了解)"
    r"\s*[?？]\s*$", re.I)
_V2_TRIGGER = lazy(r"^(?:ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|für die zukunft|fortan|ab heute)$", re.I)
# "一直无输出": what happens; "可能…": a guess; "修复不要再出现": what is not to happen again (a bug), not how to work
_CJK_NOT_A_RULE = lazy(r"^(?:忘|出错|失败|报错|崩溃|不行|没有|没|無|无|搞不|失敗|エラー|落ちる|壊れ|可能|也许|或许|大概"
                       r"|出现|出現|发生|發生|复现|復現|再现|再現)")
# "いつも CI で失敗する", "总是在 CI 上失败": it fails, what happens (unless asked not to let it).
_CJK_COMPLAINT_END = lazy(
    r"(?:失败|失敗|报错|出错|崩溃|挂掉|挂了|超时|落ちる|落ちた|落ちます|落ちました|壊れる|壊れた|壊れます|エラーになる|エラーが出る"
    r"|タイムアウトする|忘れる|忘れます|忘记|忘了|不行|不工作|動かない)(?:する|した|します|しました|了|的|啊|呢|よ|ね|な|わ)*[。.!！…]*$")
_CJK_PREFIX_OK = lazy(rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>{_CONDITION})?(?P<polite>{_POLITE})?(?P<subject>{_SUBJECT})?[，,、：:]?\s*$", _FLAGS)

# Not a rule though a trigger word is there.
_NOT_A_RULE_AFTER = lazy(
    r"^(?:when|what|how|why|where|who|whether|which|mind|minding|it\b|about it|me\b|this\b\s*$|that\b\s*$"
    r"|cuando|qué|como|cómo|quand|quoi|comment|wann|was|wie|warum|quando|o que|como)", re.I)
_ALWAYS_NEXT_BAD = lazy(
    r"^(?:the|a|an|this|that|same|so|seen|heard|been|done|had|got|thought|happens|happened|works|worked|fails|failed|was|were|is|are"
    r"|mind|again(?=\s*(?:[,.!;…]|$))|ever$|sure|be (?:this|that|so|like)\b|something|nothing|happy|glad|fun|a pleasure|helpful|useful|nice|great|appreciated|awesome|amazing|forget|forgets|forgot|gets?|good|bad|too|wrong|right|crash(?:es|ed)?|breaks?|broke"
    r"|falla|fallan|falló|funciona|funcionan|funcionó|rompe|falha|falham|quebra|échoue|échouent|marche|fonctionne|plante"
    r"|scheitert|funktioniert|klappt|stürzt|kaputt|geht|schlägt|hängt|bricht|läuft|passiert|gibt es|ist es|war es"
    r"|lo mismo|même|mismo|misma|mesmo|mesma|dasselbe|dieselbe|derselbe|gleiche"
    r"|había|habían|he|has|ha|hemos|tinha|tenho|tive|foi|fui|hatte|habe|hab|war|ai|avait|avons|vi|visto|gesehen"
    # "Siempre me olvido …", "sempre me esqueço …": what happens to the speaker, not a rule.
    r"|me olvido|me olvida|me equivoco|me pasa|me esqueço|me esquece|me engano|me acontece|m'arrive|j'oublie"
    # "Nunca entendi esse erro", "Nunca funcionó", "jamais testé": what happened (a past tense), not a rule
    r"|\w+(?:ei|ou|iu)|entendi|consegui|fiz|soube|pude|disse|\w+[éíó]|hice|supe|dije|fue"
    # "Nie wieder so einen Bug", "Never again such a mess": an exclamation
    r"|wieder so|so (?:ein|eine|einen|was)|again (?:such|this|that|a|an)|más (?:un|una|esto|eso)|mais (?:um|uma|isso)"
    # "Immer wieder dieser Fehler", "Sempre dá esse erro": what keeps happening
    r"|wieder (?:dieser|diese|dieses|das|der|die)|dá|dão|deu|da (?:el |un )?error|sale|aparece|aparecem|acontece)\b", re.I)
# After "can you remember that" in a question: a thing ("that bug from last week?", "that file I
# showed you?"), not a clause ("that CI runs on Node 20?", "that we deploy on Fridays?").
_THAT_THING = lazy(
    r"^(?!(?:we|i|you|they|he|she|it|the|our|all|every|no|there|this|prod|ci|main)\b)[\w-]+"
    r"(?:\s+(?:from|we|i|you|they|he|she|last|yesterday|earlier|again|about|in|on|at|with|when|where)\b.*)?[?？\s]*$",
    re.I)
_FORGET_REASON = lazy(
    r"\s*[,;—–]\s+(?=(?:we|i|you|they|since|because|as|now|it's|it is|that's|wir|weil|da|porque|ya|parce|car|nous|pois|我们|因为)\b)", re.I)
# "forget the css, just make it work": what to do instead follows the thing left aside.
_THEN_DO = lazy(r"\s*(?:[,;—–]|\s(?:and|then|y|et|und|e))\s+(?:(?:just|instead|rather|only|now)\s+)?", re.I)
# In a forget request's trigger, the rule it names ("drop the rule about", "olvida la regla de").
_RULE_NAMED = lazy(r"(?:(?:the|la|a|die|le|o) )?(?:rule|regla|règle|regel|regra)\b.*$", re.I)
_PREPOSITION_FIRST = lazy(r"^(?:about|on|for|regarding|mit|über|zu|zum|zur|von|sur|de|du|des|concernant|sobre|do|da|dos|das|acerca de)\s", re.I)
# An article right after an "always" that opens the sentence: "Siempre el mismo error", "Immer das Gleiche".
_ARTICLE_FIRST = lazy(r"^(?:la|le|les|un|une|el|los|las|una|os|as|um|uma|der|die|das|ein|eine|dem|den)\b", re.I)
_SAME_TROUBLE = lazy(
    r"\b(?:même|pareil|mismo|misma|mesmo|mesma|gleiche|selbe|dasselbe|erreur|error|erro|fehler|problème|problema|problem|bug"
    r"|souci|lío|histoire|historia|história|geschichte|chose|cosa|coisa|ding)\b", re.I)


def _names_a_thing(rest: str) -> bool:
    """A few words after an article that name the same trouble again: "la même erreur", "el
    mismo error", "das Gleiche" (and not "le vendredi" nor "die Tests zuerst laufen lassen")."""
    clause = re.split(r"[,;:–—]", rest, maxsplit=1)[0]  # "la même erreur, je ne comprends pas"
    return bool(_ARTICLE_FIRST.match(clause)) and len(clause.split()) <= 7 and bool(_SAME_TROUBLE.search(clause))


# A forget request that is a correction of the conversation, not of memory.
_FORGET_CONVERSATION = lazy(
    r"^(?:(?:the|my) (?:last|previous|earlier|first) (?:message|comment|request|question|instruction|sentence|part|one|answer)"
    r"|what i (?:just )?(?:said|asked|wrote)|my (?:last|previous)|that last|la dernière|o que eu disse|lo que dije|was ich gesagt"
    # "forget about the previous code, here's the new version": an earlier thing of this chat put aside
    r"|(?:about )?(?:the|your|that|this|my) (?:(?:previous|earlier|above|original|last|first|second|other) (?:[\w-]+ )?|old )"
    r"(?:code|version|snippet|approach|solution|suggestion|example|attempt|draft|implementation|answer|response|reply|output|error|prompt|one)s?\b)", re.I)
# "In the future this will be replaced": a prediction, not a rule.
_PREDICTION = lazy(
    r"^(?:this|that|it|there|they|these|those)\b.*\b(?:will|'ll|is going to|are going to)\b|^(?:with|to|and|into|from|on)\b"
    r"|^(?:perhaps|maybe|possibly|probably|hopefully|eventually)\b"
    # "From now on it should work, right?", "In the future we might move to pnpm": a guess
    r"|^(?:it|this|that|things|everything|there)\s+(?:might|may|could|would)\b|^(?:we|i)\s+(?:might|may|could|would)\b"
    r"|^(?:it|this|that|things|everything)\s+should\s+(?:work|pass|help|improve|be (?:fine|ok|okay|good|better|faster|easier|done))\b"
    # "from now on it works, thanks!": what holds now, not a rule
    r"|^(?:it|this|that|things|everything)\s+(?:works|worked|runs|passes|is (?:fine|ok|okay|good|working|better|done))\b"
    # "The rule is a bit confusing to me": an opinion of the rule
    r"|^(?:a bit|a little|very|so|too|quite|really|pretty|kind of|sort of|confusing|unclear|weird|strange|silly|stupid"
    r"|dumb|annoying|outdated|broken|wrong|hard|complicated|useless|pointless|not (?:clear|great|good|ideal))\b", re.I)
# "For the record, I was right about the cache", "As a rule of thumb, I think it's fine": the
# speaker's own past or opinion, not a rule.
_SPEAKER_SAYS = lazy(r"^i\s+(?:was|were|did|said|told|thought|think|guess|believe|feel|knew|meant|am right|'m right)\b"
                    # "from now on I'll handle the deploys myself": the speaker's own plan
                    r"|^i(?:'ll|'m going to| will| am going to| can)\s"
                    # "From now on I am just giving you instructions …": what the speaker does
                    # ("remember that I'm using Windows" tells the speaker's set-up, to keep)
                    r"|^i(?:'m| am)\s+(?:just\s+|only\s+)?(?!(?:using|running|on)\b)\w+ing\b", re.I)
_PAST_AFTER_SUBJECT = lazy(r"^(?:had|was|were|did|got|used|seemed|wanted|forgot|forget|\w+ed)\b", re.I)
_DETERMINER = lazy(r"^(?:the|a|an|this|that|these|those|my|your|our|it|el|la|los|las|le|les|der|die|das|o|a|os|as)\b", re.I)
# "Usa siempre pnpm", "Benutze immer pnpm", "Utilise toujours pnpm": an imperative verb, then the word.
_VERB_FIRST_TRIGGER = lazy(r"^(?:immer|niemals|nie|siempre|nunca|jamás|toujours|jamais|sempre)$", re.I)
_VERB_FIRST = lazy(
    rf"^{_FILLERS}(?P<cond>{_CONDITION})?(?:{_POLITE})?(?!(?:es|das|der|die|er|sie|ist|war|hat|it|il|elle|ce|c'est|ça|cela|est|está|esto|eso|isso|isto|ele|ela"
    r"|é|era|foi|fue|ser|être|sein|ich|je|yo|eu|wir|nous|nosotros|nós|on|man|que|qui|y|et|und|e|no|ne|não|nicht)\s)"
    # "Nutze in Zukunft immer ruff": a German "from now on" may stand between the verb and "immer"
    r"(?P<verb>[^\W\d_]{2,})\s+(?:(?:bitte|mal|por favor|s'il te plaît|stp)\s+)?(?:(?:in zukunft|künftig|zukünftig|ab jetzt|ab sofort|von nun an|von jetzt an|fortan|ab heute)\s+)?$",
    _FLAGS)
# "Nutze ab jetzt ruff.": the imperative's verb before the German "from now on" ("Läuft ab jetzt
# besser.", a verb in -t, tells what happens).
_VERB_BEFORE_V2 = lazy(
    rf"^{_FILLERS}(?:bitte\s+)?(?!(?:es|das|der|die|er|sie|ist|war|hat|ich|wir|man|und|nicht|alles|nichts)\s)(?P<verb>[^\W\d_]{{1,}}[^\W\d_t])\s+(?:bitte\s+)?$",
    _FLAGS)
# "Forget it.", "Vergiss es, ich mach's selbst.": a pronoun alone, then the sentence or its clause ends.
_ECHO_FORGET = lazy(r"^(?:it|this|that|everything|all that|about it|me|mind|lo|le|la|es|das|isso|ça|eso|esto|isto)\s*(?:[.!,;]|$)", re.I)

# --- questions
_QUESTION_START = lazy(
    r"^(?:do(?!\s+not\b|n't|n’t)|does|did|is|are|was|were|have|has|had|what|why|how|when|where|who|which|should|shall|may|might|am"
    r"|do you remember|did you|erinnerst du|weißt du|weisst du|hast du|ist|sind|was|warum|wie|wo|wann|wer"
    r"|recuerdas|te acuerdas|sabes|qué|por qué|cómo|dónde|cuándo"
    r"|tu te souviens|te souviens-tu|est-ce que|pourquoi|comment|où|quand|qu'est-ce"
    r"|você (?:se )?lembra|lembra (?:de )?(?:qual|o que|quando|como)|por que|o que|onde|quando|qual"
    r"|你还记得|你记得|还记得|为什么|怎么|什么|覚えてる|覚えています)(?![A-Za-zÀ-ÿ'’])", re.I)
_QUESTION_END = lazy(r"[?？]\s*$|(?:吗|么|呢|か)\s*[。.]?\s*$")
_POLITE_ASK = lazy(
    r"^(?:{f})(?:could|can|would|will) you(?: please| kindly| also)?\s+|^(?:{f})(?:can|could|shall) we\s+|please\b|\bbitte\b|por favor|s'il (?:te|vous) plaît"
    r"|\b(?:could|can|would|will) you(?: please| kindly)?\s+(?!remember (?:what|when|how|why|where|who|which))"
    r"|^(?:{f})(?:kannst|könntest|können|könnten) (?:du|Sie)|^(?:{f})¿?(?:puedes|podrías|podria|podrías|puede|podría)\b"
    r"|^(?:{f})(?:peux|pourrais|pouvez|pourriez)-(?:tu|vous)|^(?:{f})(?:você )?(?:pode|poderia|podes)\b"
    r"|能不能|能否|可不可以|可以.*吗|好吗|好不好|行吗|行不行|麻烦|帮我|请"
    r"|てくれ|てもら|ていただ|ください|下さい".replace("{f}", _FILLERS), re.I)
_CANNOT_BE_POLITE = lazy(r"^(?:{f})(?:why|what|how|when|where|who|which|warum|was|wie|por qué|qué|pourquoi|quoi|por que)\b|^(?:{f})(?:do|did|does) you remember|^(?:{f})remember (?:what|when|how|why|where|who|which)\b|你还记得|还记得|覚えてる[？?]|覚えていますか".replace("{f}", _FILLERS), re.I)

# --- one-off scope
_ONE_OFF_NOUNS = (
    "answer|reply|response|question|message|time|run|commit|pr|pull request|task|session|conversation|chat|turn|once|build"
    "|step|query|output|table|prompt|request|one|go|attempt|iteration|test run|script|job|ticket|issue|bug|fix|migration"
    "|release|deployment|demo|meeting|experiment")
_ONE_OFF = lazy(
    # "this run", "that commit"; a plural only after "the next" ("remember that commits
    # must be signed": there "that" opens a clause)
    r"\b(?:(?:this|the current|the next|your next|that) (?:{nouns})|(?:the next|your next) (?:{nouns})s)\b"
    r"|\bfor (?:now|the moment|the time being|today|this(?! (?:project|repo|repository|codebase|team|company|org)\b)"
    r"|the rest of (?:this|the|our) (?:session|conversation|chat))\b"
    r"|\b(?:just|only) (?:this )?once\b|\bright now\b|\bthis time\b|\btemporarily\b|\btoday\b|\btonight\b"
    r"|\bafter this\b|\b(?:when|once|after) (?:you're|you are|you've|you have) (?:done|finished)\b|\bafter that\b|\bin (?:this|your next) (?:answer|reply|response|message|session|conversation|chat)\b"
    r"|\bfor (?:the )?next (?:\d+|few|couple|two|three) (?:questions?|answers?|replies|messages?|minutes?|hours?)\b"
    r"|\bdiese[snm]? (?:Mal|Antwort|Frage|Lauf|Commit|Sitzung|Skript|Skripts|Ticket|Bug|Aufgabe)\b|\bdiesmal\b|\bvorerst\b|\bfür jetzt\b|\bfürs erste\b|\bheute\b"
    r"|\bnächsten? Frage\b|\bim Moment\b|\bvorübergehend\b"
    r"|\besta (?:vez|respuesta|pregunta|sesión|ejecución|tarea)\b|\beste (?:commit|paso|script|ticket|bug)\b|\bpor ahora\b|\bpor el momento\b|\bhoy\b"
    r"|\bpróxima pregunta\b|\bde momento\b|\btemporalmente\b"
    r"|\bcette (?:fois|réponse|question|session|tâche|étape|exécution|migration)\b"
    r"|\b(?:ce|cet) (?:commit|coup-ci|script|fichier temporaire|job|build|lancement|ticket|bug|essai)\b|\bpour l'instant\b|\bpour le moment\b"
    r"|\baujourd'hui\b|\bprochaine question\b|\btemporairement\b"
    r"|\bdesta vez\b|\bnesta (?:resposta|pergunta|sessão|execução|tarefa)\b|\bessa vez\b|\bpor enquanto\b|\bpor agora\b|\bhoje\b"
    r"|\b(?:deste|neste|desse|nesse) (?:script|commit|ticket|bug)\b"
    r"|\bpróxima pergunta\b|\bneste (?:commit|momento)\b|\btemporariamente\b"
    # "fix our bug", "修复我们的BUG": the bug at hand is this task
    r"|\bfix (?:this|the|our|my|that|these|those) (?:bug|error|issue|problem|crash|failure)s?\b"
    r"|修复(?:这个|这些|我们的|一下)?(?:BUG|bug|Bug|问题|错误|报错)"
    r"|这次|这一次|此次|暂时|目前先|先这样|今天|这个回答|这个问题|下一个问题|下个问题|这轮|本轮|这一轮"
    r"|今回|今だけ|とりあえず|一時的に|今日は|この回答|この質問|次の質問|今のところ".replace("{nouns}", _ONE_OFF_NOUNS),
    re.I,
)


def family_kind(family: str) -> RequestKind:
    return "forget" if family == "forget" else "directive"


# A sentence that says it is not meant: a joke's marker, in the seven languages.
_JOKING = lazy(
    r"\b(?:just kidding|(?<!no )(?:i'?m |only )?kidding|jk|j/k|lol|lmao|rofl|haha\w*|hehe\w*|jaja\w*|jeje\w*|kkk+|rsrs\w*|mdr|ptdr"
    r"|nur (?:ein )?(?:scherz|spaß|witz)|war ein witz|c'est une blague|je rigole|es broma|estoy bromeando|é brincadeira|brincadeira)\b"
    r"|哈哈|开玩笑|開玩笑|冗談|（笑）|\(笑\)|笑笑|😂|🤣", re.I)
_REPORTED = lazy(
    r"\b(?:says?|said|wrote|writes|reads|told|tells|claims?|sagt|sagte|schreibt|dice|dijo|escribe|dit|écrit|diz|disse|escreve)\b"
    r"|说|写着|言って|書いて", re.I)
# "Whenever you touch the schema, run the migrations": a condition, then an imperative.
_STANDING_CONDITION = lazy(
    rf"^{_FILLERS}(?:whenever|every time|each time|any time|immer wenn|jedes mal,? wenn|cada vez que|siempre que"
    r"|chaque fois que|à chaque fois que|toutes les fois que|sempre que|toda vez que)\b[^,，]{3,160}[,，]\s*"
    r"(?!(?:it|i|we|they|he|she|there|this|that|the|es|ich|wir|das|der|die|il|je|on|nous|ça|c'|yo|eso|esto|ele|ela|eu|isso)\b)"
    r"(?P<act>[^\W\d_]{2,}\s+\S.*)$", _FLAGS)

# "Please stop using yarn, we moved to pnpm for good.", "We don't use yarn anymore.": a standing
# "no more" (English), the whole sentence the rule.
_STANDING_NEGATION = lazy(
    rf"^{_FILLERS}{_LABEL}(?=.*\b(?:anymore|any more|any longer|for good|no longer|ever(?=\W*$))\b)(?:please\s+)?"
    r"(?:(?:don'?t|do not|stop|quit)\s+|(?:we|you)\s+(?:don'?t|do not|shouldn'?t|should not|no longer|won'?t|will not)\s+)"
    r"(?!(?:worry|bother|mind|have|get|see|hear|know|think|care|feel|talk|need to worry)\b)[a-z]", _FLAGS)
# "The rule about squash merges no longer applies, forget it.": what it names is to be forgotten.
_NO_LONGER_APPLIES = lazy(
    rf"^{_FILLERS}(?P<what>\S.{{2,160}}?)\s+(?:no longer applies|doesn't apply anymore|does not apply anymore"
    r"|doesn't apply any more|is no longer (?:needed|valid|true|the case|required|in effect|a thing)"
    r"|isn't (?:needed|valid|true|required) anymore)\b", _FLAGS)


# ---------------------------------------------------------------------------------------------
# habits, the language to talk in, and what is no habit (omp.intents.grammar._beyond_grammar)

# "before every commit", "after each change", "antes de cada commit": each unit of the work (what
# the code does on each request is the thing built's spec: "log after each request" is not here)
_WORK_UNITS = (r"commits?|push(?:es)?|changes?|code changes?|edits?|answers?|responses?|replies|reply|releases?"
               r"|deploy(?:ment)?s?|prs?|pull requests?|merges?|sessions?|tasks?|steps?|milestones?|features?|fix(?:es)?"
               r"|refactors?|modifications?|updates?|iterations?|sprints?|file you (?:create|edit|change|touch)")
# "before pushing", "antes de pushear", "vor dem Commit": a unit of the work named by its act, which
# makes a habit only when the sentence is an obligation ("you have to …", "tenés que …", "we must …"):
# "run the tests before pushing" alone may be this change's step.
_BEFORE_THE_ACT = lazy(
    r"\b(?:before|after|prior to) (?:pushing|committing|merging|deploying|releasing|publishing|tagging|opening (?:a|the) (?:pr|pull request)"
    r"|you push|you commit|you merge|you deploy|we push|we commit|we merge|we deploy)\b"
    r"|\b(?:antes de|después de|despues de|depois de) (?:pushear|hacer (?:un )?push|dar push|fazer (?:o )?push|commitear|commitar"
    r"|hacer (?:un )?commit|fazer (?:um |o )?commit|mergear|hacer (?:el )?merge|fazer (?:o )?merge|desplegar|publicar|subir)\b"
    r"|\b(?:vor|nach) dem (?:push|pushen|commit|committen|merge|mergen|deploy)\b|\b(?:avant|après) (?:de )?(?:pusher|commiter|merger|déployer)\b",
    re.I)
# Where to keep what a pointer points at ("remember that for your instructions"): no rule of its own.
WHERE_TO_KEEP = r"(?:for|in|into) (?:your (?:instructions|rules|memory|notes)|future reference|the future|later|next time)"
_EACH_OCCASION = lazy(
    rf"\b(?:before|after|on|with|at the end of|at the start of|when (?:you )?finish(?:ing)?) (?:every|each|any) (?:single )?(?:new )?"
    rf"(?:{_WORK_UNITS})\b"
    r"|\b(?:antes de|después de|despues de|tras|depois de|vor|nach|bei|avant|après) (?:cada|jedem|jeder|chaque) \w+"
    # "stop adding disclaimers to every answer": each reply
    r"|\b(?:to|in|into|for|at the end of|at the start of) (?:every|each) (?:single )?(?:answer|response|reply|message|output)\b"
    # "use tabs in every file you write": each file of the work
    r"|\b(?:in|to|for|into) (?:every|each|any) (?:single )?(?:new )?file (?:you|we) (?:write|create|edit|touch|change|add)\b"
    # "… each time we make changes", "every time you open a PR": the unit of work after "each time we/you"
    rf"|\b(?:each|every) (?:single )?time (?:we|you) (?:\w+ ){{0,2}}?(?:{_WORK_UNITS})\b"
    # "我们完成每个里程碑之后都需要…": after each unit, (we) need to
    r"|每(?:个|個|一个|次|一次)[^，,。！？!?]{1,20}?(?:之后|之後|以后|以後|之前|前|后|後)都?(?:要|得|必须|需要)", re.I)
_LANGUAGES = (r"english|chinese|mandarin|spanish|portuguese|french|german|japanese|korean|russian|polish|italian|dutch"
              r"|turkish|ukrainian|vietnamese|indonesian|hindi|arabic|hebrew|swedish|czech")
# What the two readings of a reply language below share: "… in English", and the languages in Chinese.
_IN_A_LANGUAGE = rf"(?:\s+(?:to|with)\s+me|\s+(?:me|us))?\s+(?:only\s+)?in\s+(?:{_LANGUAGES})"
_CJK_LANGUAGE = r"(?:中文|汉语|英文|英语|日语|日文|韩语|俄语|法语|德语|西班牙语)"
_REPLY_LANGUAGE = lazy(
    rf"^{_FILLERS}(?:(?:please|pls|plz|kindly)\s+)?(?:(?:always|only)\s+)?(?:answer|reply|respond|speak|talk|write|communicate|chat)"
    rf"{_IN_A_LANGUAGE}(?:[\s,]+(?:please|pls|only|with me|to me))?[\s.!]*$"
    # "请用简体中文回复", "用中文回答我的问题": the replies' language, with what is answered
    rf"|^请?(?:你)?(?:用|使用|说)(?:简体|繁体|繁體)?{_CJK_LANGUAGE}(?:和我)?"
    r"(?:说话|回答|回复|交流|沟通|对话|讲|写)?(?:我的?问题|问题|所有问题)?[吧啊。！!\s]*$",
    re.I)
# "逐一修复然后更新README，使用中文回答", "fix the tests, and answer in Spanish": the reply language asked for
# at the end of a task, after it; the task is this one, the language holds for the replies.
_REPLY_LANGUAGE_AFTER = lazy(
    rf"[,;]\s*(?:and\s+)?(?P<clause>(?:(?:please|pls|plz|kindly)\s+)?(?:(?:always|only)\s+)?(?:answer|reply|respond|speak|talk|write|communicate)"
    rf"{_IN_A_LANGUAGE})(?:[\s,]+(?:please|pls|only))?[\s.!]*$"
    rf"|(?:[，,；;]\s*|(?<=[\u4e00-\u9fffA-Za-z0-9]))(?P<cjk>请?(?:你)?(?:用|使用){_CJK_LANGUAGE}"
    r"(?:和我)?(?:说话|回答|回复|交流|沟通|对话))[吧啊。！!\s]*$", re.I)
# "Suggest another rule for … each response", "explain what you do after each commit": the act is
# one answer to give now (a suggestion, an explanation), whatever it is about.
_ONE_TIME_ACT = lazy(r"^(?:suggest|propose|recommend|explain|tell|show|describe|list|give me|summari[sz]e|so|and so|then)\b", re.I)
# "Each time you've spawned a new cli it has bumped the port": what has happened, told
_REPORTED_OCCASION = lazy(
    rf"^{_FILLERS}(?:every time|each time|whenever|any time)\s+(?:i|we|you|it)(?:'ve|’ve|'d| have| had| did| was| were|\s+\w+ed\b)", _FLAGS)


# What the grammar (omp.intents.grammar) reads around a trigger.
# "i prefer rounded polygons for any shapes going forward": the speaker's preference, a way to work
_PREFERENCE = lazy(r"^(?:i|we)\s+(?:(?:really|would|'d|do)\s+)?(?:prefer|want|like|need)\s+(?!(?:to know|to ask|you to tell)\b)\S", re.I)
_CJK_THIS_GUIDELINE = lazy(r"^(?:这个|这条|这些|這個|這條|這些|此)(?:准则|準則|规则|規則|原则|原則|规定|規定|要求|约定|約定|规范|規範)[。！!.\s]*$")
_CJK_ASK_BEFORE = lazy(r"(?:请你|請你|请|請|你要|你)\s*$")
_DONT_FORGET = lazy(r"^(?:don'?t|dont|don’t|do not|never) forget$", re.I)
# After "don't forget": a clause ("we deploy on Fridays"), or what follows a colon
_CLAUSE_OR_LABEL = lazy(r"^\s*[:：—–-]|^\s*,?\s*(?:we|i|you|they|our|my|the team|everyone)\b", re.I)
_JA_NEXT_ACT = lazy(r"^[\u3040-\u30ff\u4e00-\u9fff]{1,8}(?:て|で)(?:ください|下さい|ね|よ)?[。！!]*$")
_LETS = lazy(r"\blet(?:'|’)?s\s*$|\blet us\s*$", re.I)
# A clause, then a comma and the standing word (`_at`).
_CLAUSE_BEFORE = lazy(rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>[^,;:?!¿]{{3,120}}?\s*[,;—–]\s*)$", _FLAGS)
_PREPOSITION_NEXT = lazy(
    r"^(?:by|with|on|in|at|for|to|from|without|before|after|via|under|over|into|through|during|mit|ohne|am|im|auf|vor|nach"
    r"|con|sin|en|por|para|antes|después|avec|sans|dans|sur|par|pour|avant|après|com|sem|em|no|na|pelo|pela)\b", re.I)
_PRACTICE_CLAUSE = lazy(r"^(?:we|our team|the team|everyone|everybody|wir|nosotros|nous|on|nós|a gente)\s", re.I)
_ENGLISH_THIRD_PERSON = lazy(r"^(?:always|never)\s+[a-z]+[^s\W]s\b", re.I)
# An ask that obliges ("you have to", "tenés que", "du musst"), not one that asks a favour ("could you").
_OBLIGES = lazy(r"^(?:you (?:must|have to|need to|should|always have to|gotta)|(?:tenés|tenes|tienes|debes|hay) que|deberías|debés"
                r"|(?:você )?(?:tem|precisa) (?:que|de)|deve|du musst|ihr müsst|tu dois|vous devez|il faut)\b", re.I)
# "I think we should …", "we need to …": the team's obligation, told as the speaker's view.
_TEAM_SHOULD = lazy(r"^(?P<hedge>(?:i think|i guess|i believe|i feel like|imo)[\s,]+)?(?:we|you)\s+(?:should|must|need to|have to|ought to)\s+", re.I)
# "every time you edit this file you end up creating issues": the main clause has its own subject
# and no modal of obligation — what happens each time, not an order ("…, you should run …" is one;
# "each time we make changes we bump the version" is the team's practice).
_HAPPENS_EACH_TIME = lazy(r"\b(?:every|each|any) time\s+(?:you|i|it|they)\s+\S.{0,120}?\s(?:you|i|it|they)\s+"
                          r"(?!(?:should|must|need|needs|have to|has to|gotta|shall|always|never|ought)\b)[a-z]+", re.I)
