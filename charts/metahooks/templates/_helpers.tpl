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
app.kubernetes.io/name: {{ include "metahooks.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "metahooks.labels" -}}
helm.sh/chart: {{ include "metahooks.chart" . }}
{{ include "metahooks.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: hook-server
app.kubernetes.io/part-of: metahooks
{{- end }}

{{- define "metahooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "metahooks.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "metahooks.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The Secret holding the bearer token the service checks and Metacontroller sends. */}}
{{- define "metahooks.authSecretName" -}}
{{- .Values.auth.existingSecret | default (printf "%s-auth" (include "metahooks.fullname" .)) }}
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
{{- if .Values.networkPolicy.metacontroller.namespace }}
{{- .Values.networkPolicy.metacontroller.namespace }}
{{- else if .Values.metacontroller.enabled }}
{{- .Release.Namespace }}
{{- else }}
{{- "metacontroller" }}
{{- end }}
{{- end }}
