{{/* Chart name, truncated to the 63-character DNS label limit. */}}
{{- define "metahooks.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name: the release name, or <release>-<chart> when the release name does not contain the
chart name. Truncated to 63 characters (it is a Service name, hence a DNS label).
*/}}
{{- define "metahooks.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "metahooks.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels: only name + instance, because a Deployment's selector is immutable. */}}
{{- define "metahooks.selectorLabels" -}}
app.kubernetes.io/name: {{ include "metahooks.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end }}

{{/*
Common labels. Called with a list: the root context and what the object is
(`app.kubernetes.io/component`): hook-server, hook-auth, composite-controller, crd, metrics,
admission-webhook, admission-webhook-tls, push-receiver.
*/}}
{{- define "metahooks.labels" -}}
{{- $ctx := index . 0 -}}
helm.sh/chart: {{ include "metahooks.chart" $ctx }}
{{ include "metahooks.selectorLabels" $ctx }}
app.kubernetes.io/version: {{ $ctx.Values.image.tag | default $ctx.Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ $ctx.Release.Service }}
app.kubernetes.io/component: {{ index . 1 }}
app.kubernetes.io/part-of: metahooks
{{- end }}

{{- define "metahooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "metahooks.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The hook image. No image is published yet, so the repository has no default: rendering stops
with the steps to build and push one instead of installing pods that can never pull.
*/}}
{{- define "metahooks.image" -}}
{{- $repository := required (printf "image.repository is required: no metahooks image is published yet. Build and push one from the repository's Dockerfile, e.g. `docker build -t registry.example.com/metahooks:%s . && docker push registry.example.com/metahooks:%s`, then install with `--set image.repository=registry.example.com/metahooks --set image.tag=%s`" .Chart.AppVersion .Chart.AppVersion .Chart.AppVersion) .Values.image.repository }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
The Secret the hook pods read their accepted tokens from: `auth.existingSecret`, or the chart's
`<fullname>-auth` (keys `token`: the one Metacontroller sends, `tokens`: every accepted one).
Updated in place, so the pods pick a change up from the mounted file without a restart.
*/}}
{{- define "metahooks.authSecretName" -}}
{{- .Values.auth.existingSecret | default (printf "%s-auth" (include "metahooks.fullname" .)) }}
{{- end }}

{{/* The key of the pods' token file inside metahooks.authSecretName. */}}
{{- define "metahooks.authTokensKey" -}}
{{- if .Values.auth.existingSecret }}{{ .Values.auth.secretKey }}{{ else }}tokens{{ end }}
{{- end }}

{{/*
The chart-managed tokens as JSON `{"current": <sent by Metacontroller>, "accepted": [current,
…]}`, resolved once per render (memoized in .Values) because a generated token is random and two
templates need the same one. current: `auth.token`, else the one in the cluster (so upgrades keep
a generated token), else 48 random characters. accepted: current, `auth.extraTokens`, and the
previous current token found in the cluster when it differs (so the old token keeps working until
Metacontroller has switched; the next upgrade drops it).
*/}}
{{- define "metahooks.authTokens" -}}
{{- if not (hasKey .Values.auth "__resolved") }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-auth" (include "metahooks.fullname" .)) }}
{{- $inCluster := "" }}
{{- if and $existing $existing.data (hasKey $existing.data "token") }}
{{- $inCluster = index $existing.data "token" | b64dec }}
{{- end }}
{{- $current := .Values.auth.token | default $inCluster | default (randAlphaNum 48) }}
{{- $accepted := list $current }}
{{- range .Values.auth.extraTokens }}{{ $accepted = append $accepted . }}{{ end }}
{{- if $inCluster }}{{ $accepted = append $accepted $inCluster }}{{ end }}
{{- $_ := set .Values.auth "__resolved" (dict "current" $current "accepted" ($accepted | uniq)) }}
{{- end }}
{{- .Values.auth.__resolved | toJson }}
{{- end }}

{{/*
The Secret Metacontroller reads the token from. Chart-managed: `<fullname>-auth-<10 hex of the
token's SHA-256>`, immutable, so a new token is a new Secret name, hence a new CompositeController
spec: Metacontroller reads credentials only when it (re)creates a controller, and recreates one
only when the spec changes. A new name also cannot be served stale from its Secret cache.
*/}}
{{- define "metahooks.authSentSecretName" -}}
{{- if .Values.auth.existingSecret }}
{{- .Values.auth.existingSecret }}
{{- else }}
{{- $tokens := include "metahooks.authTokens" . | fromJson }}
{{- printf "%s-auth-%s" (include "metahooks.fullname" . | trunc 47 | trimSuffix "-") ($tokens.current | sha256sum | trunc 10) }}
{{- end }}
{{- end }}

{{/*
The credential revision in every hook URL (`?rev=<10 hex>`), empty when there is nothing to
track. It covers what the chart does not name by content: the token inside `auth.existingSecret`
and the CA behind `caBundle` (looked up in the cluster at install/upgrade; `helm template` cannot
see them), and `credentialsRevision`, which you change by hand where lookup is unavailable
(GitOps). A change changes the CompositeController spec, so Metacontroller re-reads them.
*/}}
{{- define "metahooks.credentialsRevision" -}}
{{- $parts := list }}
{{- if and .Values.auth.enabled .Values.auth.existingSecret }}
{{- $s := lookup "v1" "Secret" .Release.Namespace .Values.auth.existingSecret }}
{{- if and $s $s.data }}{{ $parts = append $parts (printf "auth=%s" (index $s.data .Values.auth.secretKey | default "")) }}{{ end }}
{{- end }}
{{- if .Values.tls.enabled }}
{{- $ca := include "metahooks.caBundle" . | fromJson }}
{{- if $ca.inline }}
{{- $parts = append $parts (printf "ca=%s" $ca.inline) }}
{{- else if $ca.secretRef }}
{{- $s := lookup "v1" "Secret" $ca.secretRef.namespace $ca.secretRef.name }}
{{- if and $s $s.data }}{{ $parts = append $parts (printf "ca=%s" (index $s.data ($ca.secretRef.key | default "ca.crt") | default "")) }}{{ end }}
{{- else if $ca.configMapRef }}
{{- $c := lookup "v1" "ConfigMap" $ca.configMapRef.namespace $ca.configMapRef.name }}
{{- if and $c $c.data }}{{ $parts = append $parts (printf "ca=%s" (index $c.data ($ca.configMapRef.key | default "ca.crt") | default "")) }}{{ end }}
{{- end }}
{{- end }}
{{- with .Values.credentialsRevision }}{{ $parts = append $parts (printf "manual=%s" .) }}{{ end }}
{{- if $parts }}
{{- join "\n" $parts | sha256sum | trunc 10 }}
{{- end }}
{{- end }}

{{/* The CompositeControllers' caBundle as JSON: `tls.caBundle`, else the TLS Secret's `ca.crt`. */}}
{{- define "metahooks.caBundle" -}}
{{- .Values.tls.caBundle | default (dict "secretRef" (dict "name" .Values.tls.secretName "namespace" .Release.Namespace "key" "ca.crt")) | toJson }}
{{- end }}

{{/* The hook Service port's name: `https` when the service terminates TLS, else `http`. */}}
{{- define "metahooks.hookPortName" -}}
{{- ternary "https" "http" .Values.tls.enabled }}
{{- end }}

{{/*
Base URL of the hooks as Metacontroller sees them: the chart's own Service, through cluster DNS
(`<service>.<namespace>.svc` resolves from any namespace via the search path).
*/}}
{{- define "metahooks.hookBaseUrl" -}}
{{- printf "%s://%s.%s.svc:%d" (include "metahooks.hookPortName" .) (include "metahooks.fullname" .) .Release.Namespace (int .Values.service.port) }}
{{- end }}

{{/* Namespace Metacontroller runs in (for the NetworkPolicy). */}}
{{- define "metahooks.metacontrollerNamespace" -}}
{{- .Values.networkPolicy.metacontroller.namespace | default "metacontroller" }}
{{- end }}

{{/*
Admission webhooks: the TLS Secret the webhook listener serves (cert-manager's, or the user's).
*/}}
{{- define "metahooks.webhookSecretName" -}}
{{- if .Values.admissionWebhooks.certManager.enabled -}}
{{- .Values.admissionWebhooks.secretName | default (printf "%s-webhook-tls" (include "metahooks.fullname" .)) -}}
{{- else -}}
{{- .Values.admissionWebhooks.secretName -}}
{{- end -}}
{{- end }}

{{/*
Admission webhooks: the cert-manager Certificate's name.
*/}}
{{- define "metahooks.webhookCertificateName" -}}
{{- printf "%s-webhook" (include "metahooks.fullname" .) -}}
{{- end }}

{{/*
A memory quantity in whole MiB (rounded down), from bytes or a Mi, Gi, M or G quantity; rendering
fails on any other form. Called with a list: the value's name (for the message) and the quantity.
*/}}
{{- define "metahooks.mebibytes" -}}
{{- $name := index . 0 }}
{{- $q := index . 1 }}
{{- if regexMatch "^[0-9]+Mi$" $q }}{{ trimSuffix "Mi" $q | int64 }}
{{- else if regexMatch "^[0-9]+Gi$" $q }}{{ mul (trimSuffix "Gi" $q | int64) 1024 }}
{{- else if regexMatch "^[0-9]+M$" $q }}{{ div (mul (trimSuffix "M" $q | int64) 1000000) 1048576 }}
{{- else if regexMatch "^[0-9]+G$" $q }}{{ div (mul (trimSuffix "G" $q | int64) 1000000000) 1048576 }}
{{- else if regexMatch "^[0-9]+$" $q }}{{ div ($q | int64) 1048576 }}
{{- else }}{{ fail (printf "%s %q: use bytes or a Mi, Gi, M or G quantity (the Node heap is derived from it)" $name $q) }}
{{- end }}
{{- end }}
