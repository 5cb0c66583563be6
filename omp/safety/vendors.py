"""Vendors' prefixed tokens that detect-secrets 1.5.0 does not know (docs/secrets-and-poisoning.md), in two tables:
omp's first (`TOKENS_BY_PREFIX`), and more (`TOKENS`) read off gitleaks' maintained rule set
(`config/gitleaks.toml`) for the vendors neither detect-secrets nor the first table knew. Each of
`TOKENS` is `(kind, pattern, triggers, before)`: the pattern, the lower-case literals found in
every match, and how far before its trigger a match may start (0: it starts at the trigger).
`omp.safety.patterns` compiles both into its one table of patterns.

Tokens without a prefix of their own (Twilio's `SK…`/auth token, Mailgun, Mailchimp, Discord bot
tokens) are told by their structure in `omp.safety.encoded`.
"""

from __future__ import annotations

# Vendors' tokens that detect-secrets 1.5.0 does not know, each by the prefix the vendor puts on it
# (kind, pattern, the prefixes in lower case). A prefix makes them cheap to find and certain: what
# follows it is fixed in length and alphabet.
TOKENS_BY_PREFIX: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b", ("shpat_", "shpss_", "shpca_", "shppa_")),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("dop_v1_", "doo_v1_", "dor_v1_")),
    ("doppler-token", r"\bdp\.(?:st|ct|sa|scim|audit|pt)\.(?:[a-z0-9_-]{2,35}\.)?[a-zA-Z0-9]{40,44}\b", ("dp.",)),
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b", ("age-secret-key-1",)),
    ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr.")),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{24,40}", ("gocspx-",)),
    ("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}", ("dckr_",)),
    ("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})", ("glsa_", "glc_")),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("pmak-",)),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{48,56}\b", ("gsk_",)),
    ("xai-key", r"\bxai-[A-Za-z0-9]{70,90}\b", ("xai-",)),
    ("perplexity-key", r"\bpplx-[A-Za-z0-9]{40,56}\b", ("pplx-",)),
    ("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,64}\b", ("lin_api_", "lin_oauth_")),
    ("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_",)),
    ("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", ("nrak-",)),
    ("sentry-token", r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}", ("sntrys_", "sntryu_")),
    ("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}", ("pscale_",)),
    ("supabase-token", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    ("figma-token", r"\bfigd_[A-Za-z0-9_-]{40,}", ("figd_",)),
    ("notion-token", r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b", ("ntn_", "secret_")),
    ("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{60}\b", ("hrku-",)),
    ("flyio-token", r"\bfo1_[A-Za-z0-9_-]{43}\b", ("fo1_",)),
    ("pulumi-token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{100,}", ("atatt3",)),
    ("jfrog-token", r"\bAKCp[A-Za-z0-9]{69}\b", ("akcp",)),
)

TOKENS: tuple[tuple[str, str, tuple[str, ...], int], ...] = (
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", ("sg.",), 0),
    ("square-token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}", ("sq0atp-", "sq0csp-"), 0),
    ("facebook-token", r"\bEAA[A-Za-z0-9]{90,}", ("eaa",), 0),
    ("dropbox-token", r"\bsl\.[A-Za-z0-9_-]{130,}", ("sl.",), 0),
    ("azure-ad-client-secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
     ("q~",), 5),
    ("alibaba-key", r"\bLTAI[A-Za-z0-9]{20}\b", ("ltai",), 0),
    ("tencent-key", r"\bAKID[A-Za-z0-9]{32}\b", ("akid",), 0),
    ("bitbucket-token", r"\bATBB[A-Za-z0-9_=.-]{32,}", ("atbb",), 0),
    ("terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", ("atlasv1.",), 16),
    ("contentful-token", r"\bCFPAT-[A-Za-z0-9_-]{43}", ("cfpat-",), 0),
    ("dynatrace-token", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", ("dt0c01.",), 0),
    ("easypost-key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", ("ezak", "eztk"), 0),
    ("flutterwave-key", r"\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b", ("flwseck",), 0),
    ("prefect-token", r"\bpnu_[A-Za-z0-9]{36}\b", ("pnu_",), 0),
    ("readme-key", r"\brdme_[a-z0-9]{70}\b", ("rdme_",), 0),
    ("rubygems-key", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",), 0),
    ("shippo-token", r"\bshippo_(?:live|test)_[a-f0-9]{40}\b", ("shippo_",), 0),
    ("typeform-token", r"\btfp_[A-Za-z0-9_.=-]{59}", ("tfp_",), 0),
    ("netlify-token", r"\bnfp_[A-Za-z0-9]{36}\b", ("nfp_",), 0),
    ("buildkite-token", r"\bbkua_[a-f0-9]{40}\b", ("bkua_",), 0),
    ("circleci-token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b", ("ccipat_",), 0),
    ("sonar-token", r"\bsq[pua]_[a-f0-9]{40}\b", ("sqp_", "squ_", "sqa_"), 0),
    ("mapbox-token", r"\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}", ("sk.eyj",), 0),
    ("onepassword-token", r"\bops_eyJ[A-Za-z0-9+/=_-]{100,}", ("ops_eyj",), 0),
    ("infracost-key", r"\bico-[A-Za-z0-9]{32}\b", ("ico-",), 0),
    ("adobe-secret", r"\bp8e-[A-Za-z0-9]{32}\b", ("p8e-",), 0),
    ("airtable-token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",), 0),
)
