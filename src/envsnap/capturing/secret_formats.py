"""Token formats that mark a value as a credential wherever it appears.

Each format names the public source it follows. The list is envsnap's own Python `re` rendering
of the prefix-anchored rules of gitleaks' default rule set (MIT licensed,
https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml), with the vendor's own
documentation where there is one, plus the ML-platform prefixes that gitleaks lacks (W&B,
Replicate, Groq, OpenRouter, xAI, LangSmith, NVIDIA), whose shapes are documented by the vendors
and listed by trufflehog's detectors (only named as a reference: no code is taken from it).

`WHOLE` formats are replaced entirely. `KEYED` formats need a key name in front of the value
(`AccountKey=`, `aws_secret_access_key =`...): only their one group, the value, is replaced.
Why a list and not a library: see docs/security.md (detect-secrets covers about 20 of these
formats, misses most ML-platform tokens and costs about 90 ms of import per capture).
"""

from __future__ import annotations

from typing import NamedTuple


class SecretFormat(NamedTuple):
    name: str
    pattern: str
    source: str


WHOLE: tuple[SecretFormat, ...] = (
    SecretFormat(
        "AWS access key ID",
        "\\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\\b",
        "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids ; gitleaks rule aws-access-token",
    ),
    SecretFormat(
        "Google API key",
        "\\bAIza[0-9A-Za-z_-]{35}\\b",
        "https://cloud.google.com/docs/authentication/api-keys ; gitleaks rule gcp-api-key",
    ),
    SecretFormat(
        "Azure AD / Entra ID client secret",
        "\\b[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}\\b",
        "gitleaks rule azure-ad-client-secret",
    ),
    SecretFormat(
        "Alibaba Cloud AccessKey ID",
        "\\bLTAI[A-Za-z0-9]{20}\\b",
        "gitleaks rule alibaba-access-key-id",
    ),
    SecretFormat(
        "DigitalOcean token (PAT / OAuth / refresh)",
        "\\bdo[opr]_v1_[a-f0-9]{64}\\b",
        "https://docs.digitalocean.com/reference/api/create-personal-access-token/ ; gitleaks rules digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token",
    ),
    SecretFormat(
        "Heroku API key (current HRKU- format)",
        "\\bHRKU-AA[0-9A-Za-z_-]{58}\\b",
        "gitleaks rule heroku-api-key-v2",
    ),
    SecretFormat(
        "GitHub personal access token (classic) (ghp_)",
        "\\bghp_[A-Za-z0-9]{36}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-pat",
    ),
    SecretFormat(
        "GitHub OAuth access token (gho_)",
        "\\bgho_[A-Za-z0-9]{36}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-oauth",
    ),
    SecretFormat(
        "GitHub GitHub App user-to-server token (ghu_)",
        "\\bghu_[A-Za-z0-9]{36}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-app-token",
    ),
    SecretFormat(
        "GitHub GitHub App installation token / Actions GITHUB_TOKEN (ghs_)",
        "\\bghs_[A-Za-z0-9]{36}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-app-token",
    ),
    SecretFormat(
        "GitHub refresh token (ghr_)",
        "\\bghr_[A-Za-z0-9]{36,}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-refresh-token",
    ),
    SecretFormat(
        "GitHub fine-grained PAT (github_pat_)",
        "\\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\\b",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats ; https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/ ; gitleaks rule github-fine-grained-pat",
    ),
    SecretFormat(
        "GitLab personal access token (glpat-)",
        "\\bglpat-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z]{9})?",
        "https://docs.gitlab.com/ee/security/tokens/ (token prefixes table) ; gitleaks rules gitlab-pat, gitlab-pat-routable",
    ),
    SecretFormat(
        "GitLab other tokens (deploy, runner, CI job, feed, OAuth app, SCIM, agent, ...)",
        "\\b(?:gldt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct|glptt)-[A-Za-z0-9_.-]{20,}",
        "https://docs.gitlab.com/ee/security/tokens/ (token prefixes table) ; gitleaks rules gitlab-deploy-token, gitlab-runner-authentication-token, gitlab-cicd-job-token, ...",
    ),
    SecretFormat(
        "GitLab runner registration token (legacy)",
        "\\bGR1348941[A-Za-z0-9_-]{20}\\b",
        "https://docs.gitlab.com/ee/security/tokens/ (token prefixes table) ; gitleaks rule gitlab-rrt",
    ),
    SecretFormat(
        "Atlassian (Jira/Confluence) API token",
        "\\bATATT3[A-Za-z0-9_=-]{186}\\b",
        "https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/ ; gitleaks rule atlassian-api-token",
    ),
    SecretFormat(
        "npm access token",
        "\\bnpm_[A-Za-z0-9]{36}\\b",
        "https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/ ; gitleaks rule npm-access-token ; detect-secrets npm.py",
    ),
    SecretFormat(
        "PyPI / TestPyPI API token",
        "\\bpypi-AgE[A-Za-z0-9_-]{50,}",
        "https://pypi.org/help/#apitoken ; gitleaks rule pypi-upload-token ; detect-secrets pypi_token.py",
    ),
    SecretFormat(
        "RubyGems API key",
        "\\brubygems_[a-f0-9]{48}\\b",
        "gitleaks rule rubygems-api-token",
    ),
    SecretFormat(
        "Docker Hub personal / organization access token",
        "\\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32}\\b",
        "https://docs.docker.com/security/for-developers/access-tokens/ ; trufflehog detector dockerhub (v2)",
    ),
    SecretFormat(
        "Artifactory API key / reference token",
        "\\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\\b",
        "detect-secrets artifactory.py ; gitleaks rules artifactory-api-key, artifactory-reference-token",
    ),
    SecretFormat(
        "Postman API key",
        "\\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\\b",
        "https://learning.postman.com/docs/developer/postman-api/authentication/ ; gitleaks rule postman-api-token",
    ),
    SecretFormat(
        "Terraform Cloud / HCP Terraform API token",
        "\\b[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}\\b",
        "https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens ; gitleaks rule hashicorp-tf-api-token",
    ),
    SecretFormat(
        "Pulumi access token",
        "\\bpul-[a-f0-9]{40}\\b",
        "https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/ ; gitleaks rule pulumi-api-token",
    ),
    SecretFormat(
        "HashiCorp Vault token (hvs./hvb./hvr.; legacy s.)",
        "\\bhv[sbr]\\.[A-Za-z0-9_-]{24,}",
        "https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes ; gitleaks rules vault-service-token, vault-batch-token",
    ),
    SecretFormat(
        "Doppler token",
        "\\bdp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,44}\\b",
        "https://docs.doppler.com/reference/api ; gitleaks rule doppler-api-token (dp.pt.)",
    ),
    SecretFormat(
        "1Password service account token",
        "\\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
        "gitleaks rule 1password-service-account-token",
    ),
    SecretFormat(
        "age secret key",
        "\\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\\b",
        "https://github.com/FiloSottile/age ; gitleaks rule age-secret-key",
    ),
    SecretFormat(
        "Sentry auth token (user sntryu_ / org sntrys_)",
        "\\bsntry[us]_[A-Za-z0-9+/=_]{40,}",
        "https://docs.sentry.io/account/auth-tokens/ ; gitleaks rules sentry-user-token, sentry-org-token",
    ),
    SecretFormat(
        "Grafana service account / cloud token",
        "\\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,3})",
        "gitleaks rules grafana-service-account-token, grafana-cloud-api-token",
    ),
    SecretFormat(
        "New Relic user API key",
        "\\bNRAK-[A-Z0-9]{27}\\b",
        "gitleaks rule new-relic-user-api-key",
    ),
    SecretFormat(
        "Dynatrace API token",
        "(?i:\\bdt0c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}\\b)",
        "gitleaks rule dynatrace-api-token",
    ),
    SecretFormat(
        "PlanetScale token / password",
        "\\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}",
        "gitleaks rules planetscale-api-token, planetscale-password, planetscale-oauth-token",
    ),
    SecretFormat(
        "Slack bot token (xoxb-)",
        "\\bxoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24,32}\\b",
        "https://api.slack.com/authentication/token-types ; gitleaks rule slack-bot-token ; detect-secrets slack.py",
    ),
    SecretFormat(
        "Slack user token (xoxp-)",
        "\\bxoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32}\\b",
        "https://api.slack.com/authentication/token-types ; gitleaks rule slack-user-token",
    ),
    SecretFormat(
        "Slack app-level token (xapp-)",
        "\\bxapp-\\d-[A-Z0-9]{9,12}-\\d{10,14}-[a-f0-9]{64}\\b",
        "https://api.slack.com/authentication/token-types ; gitleaks rule slack-app-token",
    ),
    SecretFormat(
        "Slack configuration / refresh token (xoxe)",
        "\\bxoxe(?:\\.xox[bp])?-\\d-[A-Za-z0-9]{140,170}\\b",
        "https://api.slack.com/authentication/config-tokens ; gitleaks rules slack-config-access-token, slack-config-refresh-token",
    ),
    SecretFormat(
        "Slack legacy tokens (xoxa-, xoxr-, xoxs-, xoxo-)",
        "\\bxox[aors]-[0-9A-Za-z-]{10,}",
        "https://api.slack.com/authentication/token-types ; gitleaks rules slack-legacy-token, slack-legacy-workspace-token",
    ),
    SecretFormat(
        "Slack incoming webhook URL",
        "https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        "https://api.slack.com/messaging/webhooks ; gitleaks rule slack-webhook-url",
    ),
    SecretFormat(
        "Discord bot token",
        "\\b[MNO][A-Za-z0-9_-]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}\\b",
        "https://discord.com/developers/docs/reference#authentication ; detect-secrets discord.py",
    ),
    SecretFormat(
        "Discord webhook URL",
        "https://(?:(?:ptb|canary)\\.)?discord(?:app)?\\.com/api/webhooks/\\d{17,20}/[A-Za-z0-9_-]{60,68}",
        "https://discord.com/developers/docs/resources/webhook",
    ),
    SecretFormat(
        "Microsoft Teams incoming webhook URL",
        "https://[a-z0-9-]+\\.webhook\\.office\\.com/webhookb2/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f-]{36}",
        "gitleaks rule microsoft-teams-webhook",
    ),
    SecretFormat(
        "Telegram bot token",
        "\\b\\d{8,10}:[A-Za-z0-9_-]{35}\\b",
        "https://core.telegram.org/bots/api#authorizing-your-bot ; detect-secrets telegram_token.py ; gitleaks rule telegram-bot-api-token",
    ),
    SecretFormat(
        "Twilio API key SID",
        "\\bSK[0-9a-fA-F]{32}\\b",
        "https://www.twilio.com/docs/iam/api-keys ; gitleaks rule twilio-api-key ; detect-secrets twilio.py",
    ),
    SecretFormat(
        "SendGrid API key",
        "\\bSG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}\\b",
        "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys ; gitleaks rule sendgrid-api-token ; detect-secrets sendgrid.py",
    ),
    SecretFormat(
        "Mailgun private API key (legacy key- form)",
        "\\bkey-[0-9a-f]{32}\\b",
        "gitleaks rule mailgun-private-api-token",
    ),
    SecretFormat(
        "Mailchimp API key",
        "\\b[0-9a-f]{32}-us[0-9]{1,2}\\b",
        "https://mailchimp.com/developer/marketing/guides/quick-start/ ; detect-secrets mailchimp.py ; gitleaks rule mailchimp-api-key",
    ),
    SecretFormat(
        "Stripe live secret key",
        "\\bsk_live_[A-Za-z0-9]{24,247}\\b",
        "https://docs.stripe.com/keys ; gitleaks rule stripe-access-token ; detect-secrets stripe.py",
    ),
    SecretFormat(
        "Stripe test secret key",
        "\\bsk_test_[A-Za-z0-9]{24,247}\\b",
        "https://docs.stripe.com/keys",
    ),
    SecretFormat(
        "Stripe restricted key",
        "\\brk_(?:live|test)_[A-Za-z0-9]{24,247}\\b",
        "https://docs.stripe.com/keys ; gitleaks rule stripe-access-token",
    ),
    SecretFormat(
        "Stripe webhook signing secret",
        "\\bwhsec_[A-Za-z0-9+/=]{32,}",
        "https://docs.stripe.com/webhooks/signature",
    ),
    SecretFormat(
        "Shopify access token (admin / custom app / private app)",
        "\\bshp(?:at|ca|pa)_[a-fA-F0-9]{32}\\b",
        "gitleaks rules shopify-access-token, shopify-custom-access-token, shopify-private-app-access-token",
    ),
    SecretFormat(
        "Shopify shared secret",
        "\\bshpss_[a-fA-F0-9]{32}\\b",
        "gitleaks rule shopify-shared-secret",
    ),
    SecretFormat(
        "Square access token / OAuth secret",
        "\\b(?:EAAA[A-Za-z0-9_-]{60}|sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43})\\b",
        "detect-secrets square_oauth.py ; gitleaks rule square-access-token",
    ),
    SecretFormat(
        "Linear API key",
        "\\blin_api_[A-Za-z0-9]{40}\\b",
        "https://linear.app/developers/graphql ; gitleaks rule linear-api-key",
    ),
    SecretFormat(
        "Notion integration token (ntn_; legacy secret_)",
        "\\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\\b",
        "https://developers.notion.com/docs/authorization ; gitleaks rule notion-api-token",
    ),
    SecretFormat(
        "OpenAI API key (project / service account / admin)",
        "\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
        "https://platform.openai.com/docs/api-reference/authentication ; gitleaks rule openai-api-key",
    ),
    SecretFormat(
        "OpenAI API key (legacy user key)",
        "\\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\\b",
        "gitleaks rule openai-api-key",
    ),
    SecretFormat(
        "Anthropic API key",
        "\\bsk-ant-api03-[A-Za-z0-9_-]{93}AA\\b",
        "https://docs.anthropic.com/en/api/getting-started ; gitleaks rule anthropic-api-key",
    ),
    SecretFormat(
        "Anthropic admin key",
        "\\bsk-ant-admin01-[A-Za-z0-9_-]{93}AA\\b",
        "gitleaks rule anthropic-admin-api-key",
    ),
    SecretFormat(
        "Hugging Face user access token",
        "\\bhf_[A-Za-z0-9]{34}\\b",
        "https://huggingface.co/docs/hub/security-tokens ; gitleaks rule huggingface-access-token",
    ),
    SecretFormat(
        "Hugging Face organization API token (legacy)",
        "\\bapi_org_[A-Za-z]{34}\\b",
        "gitleaks rule huggingface-organization-api-token",
    ),
    SecretFormat(
        "Weights & Biases API key (v1 format)",
        "\\bwandb_v1_[A-Za-z0-9]{27}_[A-Za-z0-9]{49}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/weightsandbiases (v2 detector)",
    ),
    SecretFormat(
        "Replicate API token",
        "\\br8_[A-Za-z0-9_-]{37}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/replicate",
    ),
    SecretFormat(
        "Groq API key",
        "\\bgsk_[A-Za-z0-9]{52}\\b",
        "https://console.groq.com/docs/api-keys ; https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/groq",
    ),
    SecretFormat(
        "OpenRouter API key",
        "\\bsk-or-v1-[0-9a-f]{64}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/openrouter",
    ),
    SecretFormat(
        "xAI (Grok) API key",
        "\\bxai-[A-Za-z0-9_]{80}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/xai",
    ),
    SecretFormat(
        "Perplexity API key",
        "\\bpplx-[A-Za-z0-9]{48}\\b",
        "gitleaks rule perplexity-api-key",
    ),
    SecretFormat(
        "LangSmith API key",
        "\\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/langsmith",
    ),
    SecretFormat(
        "NVIDIA NGC / build.nvidia.com API key",
        "\\bnvapi-[A-Za-z0-9_-]{64}\\b",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/nvapi",
    ),
    SecretFormat(
        "Databricks personal access token",
        "\\bdapi[0-9a-f]{32}(?:-\\d)?\\b",
        "https://docs.databricks.com/en/dev-tools/auth/pat.html ; gitleaks rule databricks-api-token",
    ),
)
KEYED: tuple[SecretFormat, ...] = (
    SecretFormat(
        "AWS secret access key (needs key name)",
        "(?i:\\baws_?secret_?access_?key\\b[\\\"']?\\s*[:=]\\s*[\\\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+]))",
        "https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html ; detect-secrets plugin aws.py (AWSKeyDetector)",
    ),
    SecretFormat(
        "AWS session token (needs key name)",
        "(?i:\\baws_?session_?token\\b[\\\"']?\\s*[:=]\\s*[\\\"']?([A-Za-z0-9/+=]{100,}))",
        "https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-envvars.html",
    ),
    SecretFormat(
        "GCP service-account private_key_id",
        '\\"private_key_id\\"\\s*:\\s*\\"([0-9a-f]{40})\\"',
        "https://cloud.google.com/iam/docs/keys-create-delete",
    ),
    SecretFormat(
        "Azure storage account key (connection string AccountKey=)",
        "(?i:\\bAccountKey=([A-Za-z0-9+/]{86}==))",
        "https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string ; detect-secrets plugin azure_storage_key.py",
    ),
    SecretFormat(
        "Azure SAS token signature (sig=)",
        "(?i:[?&;]sig=([A-Za-z0-9%+/=]{20,}))",
        "https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas",
    ),
    SecretFormat(
        "Azure Service Bus / Event Hubs SharedAccessKey",
        "(?i:\\bSharedAccessKey=([A-Za-z0-9+/]{43}=))",
        "https://learn.microsoft.com/en-us/azure/service-bus-messaging/service-bus-sas",
    ),
    SecretFormat(
        "Heroku API key (legacy UUID, needs key name)",
        "(?i:heroku[\\w.-]{0,20}[\\\"']?\\s*[:=]\\s*[\\\"']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}))",
        "gitleaks rule heroku-api-key",
    ),
    SecretFormat(
        "Cloudflare API token / key (needs key name)",
        "(?i:cloudflare[\\w.-]{0,20}[\\\"']?\\s*[:=]\\s*[\\\"']?([A-Za-z0-9_-]{37,40})\\b)",
        "gitleaks rules cloudflare-api-key, cloudflare-global-api-key",
    ),
    SecretFormat(
        "Weights & Biases API key (legacy 40-hex; needs key name)",
        "(?i:\\bWANDB_API_KEY\\b[\\\"']?\\s*[:=]\\s*[\\\"']?((?:local-)?[0-9a-f]{40})\\b)",
        "https://docs.wandb.ai/guides/track/environment-variables/ ; https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/weightsandbiases (v1 detector)",
    ),
    SecretFormat(
        "Mistral API key (needs key name)",
        "(?i:mistral[\\w.-]{0,40}?[\\\"']?\\s*[:=]\\s*[\\\"']?([A-Za-z0-9]{32})\\b)",
        "https://docs.mistral.ai/admin/security-access/api-keys/ ; https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/mistral",
    ),
    SecretFormat(
        "Cohere API key (needs key name)",
        "(?i:(?:cohere|co_api_key)[\\w.-]{0,20}[\\\"']?\\s*[:=]\\s*[\\\"']?([A-Za-z0-9]{40})\\b)",
        "gitleaks rule cohere-api-token",
    ),
    SecretFormat(
        "DeepSeek API key (needs key name)",
        "(?i:deepseek[\\w.-]{0,40}?[\\\"']?\\s*[:=]\\s*[\\\"']?(sk-[a-z0-9]{32})\\b)",
        "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors/deepseek",
    ),
    SecretFormat(
        "Kaggle API key (needs key name)",
        '(?i:(?:\\bKAGGLE_KEY\\b[\\"\']?\\s*[:=]\\s*[\\"\']?|\\"key\\"\\s*:\\s*\\")([0-9a-f]{32})\\b)',
        "https://www.kaggle.com/docs/api (kaggle.json holds 'username' and 'key')",
    ),
    SecretFormat(
        "API-key style headers (X-API-Key, PRIVATE-TOKEN, X-Auth-Token, ...)",
        "(?i:\\b(?:x-api-key|api-key|x-auth-token|private-token|x-goog-api-key|x-vault-token)\\s*:\\s*[\\\"']?([^\\s\\\"']{8,}))",
        "https://docs.gitlab.com/ee/api/rest/authentication.html (PRIVATE-TOKEN header) ; gitleaks rule curl-auth-header",
    ),
    SecretFormat(
        "Secret-looking URL query parameters",
        "(?i:[?&](?:access_token|token|api_key|apikey|key|sig|signature|password|client_secret)=([^&\\s#]{8,}))",
        "https://www.rfc-editor.org/rfc/rfc6750#section-2.3 (access_token URI query parameter)",
    ),
    SecretFormat(
        "Key=value DSN password (libpq, ODBC, JDBC)",
        "(?i:\\b(?:password|pwd)\\s*=\\s*(?!\\s)([^\\s;'\\\"]+))",
        "https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING",
    ),
)
