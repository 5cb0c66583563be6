"""More vendors' prefixed tokens (SPEC §6.1), read off gitleaks' maintained rule set
(`config/gitleaks.toml`) for the vendors neither detect-secrets 1.5.0 nor omp's first table
(`omp.safety.patterns._VENDOR_TOKENS`) knew. Each is `(kind, pattern, triggers, before)`: the
pattern, the lower-case literals found in every match, and how far before its trigger a match may
start (0: it starts at the trigger).

Tokens without a prefix of their own (Twilio's `SK…`/auth token, Mailgun, Mailchimp, Discord bot
tokens) are told by their structure in `omp.safety.encoded`.
"""

from __future__ import annotations

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
