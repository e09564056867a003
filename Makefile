# The two commands of the README:
#   make run    the local stack on http://127.0.0.1:3000 (DynamoDB Local, dev identity provider)
#   make test   every test, against DynamoDB Local
# Also: make build (every Lambda as bootstrap for provided.al2023/arm64), make lint, make bench,
#       make sam-build (sam build, in source), make sam-local (sam local start-api; Docker),
#       make coldstart (every function's start-up against a hello-world Lambda).

GO        ?= go
LOCAL     := infra/local
NPM_STAMP := $(LOCAL)/node_modules/.package-lock.json

# The Lambda functions of template.yaml (logical id minus "Function").
FUNCTIONS := Health Me ListTargets CreateTarget VerifyTarget DeleteTarget \
             CreateToken ListTokens DeleteToken GetWebhookSecret RotateWebhookSecret \
             AdminCreateUser AdminUpdateUser \
             CreateScan ListScans GetScan CancelScan ScanAgent ScanStep Webhook \
             ReportMarkdown ReportHTML ReportPDF FindingsCSV ListChecks Dashboard \
             ListTargetIssues PutTargetIssue ListTargetAssets \
             CreateSchedule ListSchedules GetSchedule UpdateSchedule DeleteSchedule RunSchedule \
             ScheduledScan CreateRetest GetRetest CancelRetest RunRetest

# Lambda build flags: static, no RPC shim, reproducible, stripped.
LAMBDA_ENV   := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags='-s -w -buildid='

.PHONY: run reset readme-figures test screenshots deps build lint lint-asl bench clean sam-build sam-local coldstart agent-eval

deps: $(NPM_STAMP)

# npm ci installs the npm tools (DynamoDB Local's jar) exactly as locked.
$(NPM_STAMP): $(LOCAL)/package.json $(LOCAL)/package-lock.json
	cd $(LOCAL) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

run: deps
	$(GO) run ./$(LOCAL)

# make readme-figures runs the README's walkthrough on a fresh stack (the
# addresses of make run: stop it first), then the CLI against it, and writes
# into README.md the demo scan's figures (<!-- readme-figures -->) and into
# docs/usage.md the CLI's SARIF/JUnit figures (<!-- readme-figures-cli -->) and
# what this machine measured (<!-- readme-measured -->: wall times, binary size). TestReadmeFirstRun
# fails when the first two disagree with a fresh run; the third is not compared.
# Then the recall test's standard and deep scans write theirs into docs/usage.md
# (<!-- readme-figures-recall -->, compared by TestDemoRecall, and
# <!-- readme-measured-recall -->, not compared).
readme-figures: deps
	$(GO) test -count=1 -run '^TestReadmeFirstRun$$' ./$(LOCAL) -args -update
	$(GO) test -count=1 -timeout 20m -run '^TestDemoRecall$$' ./$(LOCAL)/localstack -args -update

# make reset wipes what make run keeps between starts (.local: the database,
# the development sign-in key, the local admin's token). Stop the stack first.
reset:
	@if [ -e .local/lock ] && ! flock -n .local/lock true; then \
		echo "make reset: a local stack is using .local: stop it first (Ctrl-C)"; exit 1; fi
	rm -rf .local

# The dashboard's Chromium tests save their screenshots (every page at 390, 768
# and 1280 px) into SCREENSHOTS, emptied first: CI keeps the folder as an artifact.
SCREENSHOTS ?= $(CURDIR)/ci-artifacts/screenshots

# The end-to-end suite (infra/local/localstack: full and deep demo scans under
# -race) runs past go test's default 10 minutes per package on 2 cores.
test: deps
	rm -rf $(SCREENSHOTS) && mkdir -p $(SCREENSHOTS)
	DASHBOARD_SCREENSHOTS=$(SCREENSHOTS) $(GO) run ./$(LOCAL)/cmd/with-dynamodb -- $(GO) test -race -count=1 -timeout 25m ./...

# make screenshots: only the dashboard's Chromium tests, for the screenshots.
screenshots: deps
	rm -rf $(SCREENSHOTS) && mkdir -p $(SCREENSHOTS)
	DASHBOARD_SCREENSHOTS=$(SCREENSHOTS) $(GO) run ./$(LOCAL)/cmd/with-dynamodb -- $(GO) test -count=1 -run '^TestDashboard' ./$(LOCAL)/localstack
	@echo "screenshots: $$(ls $(SCREENSHOTS)/*.png | wc -l) in $(SCREENSHOTS)"

# The demo target scanned with MODEL (scripted, a Bedrock model id, or an
# OpenAI-compatible base URL) and with the playbook, side by side.
agent-eval: deps
	$(GO) run ./$(LOCAL)/cmd/with-dynamodb -- $(GO) run ./$(LOCAL)/cmd/agent-eval -model "$(MODEL)"

bench: deps
	$(GO) run ./$(LOCAL)/cmd/with-dynamodb -- $(GO) test -run '^$$' -bench . -benchmem ./...

lint: lint-asl
	$(GO) vet ./...
	cfn-lint template.yaml

# The state machine, with the Node 22 the npm tools bring.
lint-asl: deps
	$(LOCAL)/node_modules/.bin/node $(LOCAL)/node_modules/.bin/asl-validator --json-path infra/statemachine/scan.asl.json

# make build: every function into build/<Name>Function/bootstrap.
build: $(addprefix build-,$(addsuffix Function,$(FUNCTIONS)))

# sam build calls build-<LogicalId> with ARTIFACTS_DIR set (BuildMethod: makefile).
build-%Function:
	@mkdir -p $(or $(ARTIFACTS_DIR),build/$*Function)
	$(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o $(or $(ARTIFACTS_DIR),build/$*Function)/bootstrap \
		./functions/$$(echo '$*' | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr 'A-Z' 'a-z')

# sam build runs build-<LogicalId> below for every function. In source (samconfig.toml's
# build_in_source, repeated here): the makefile builder would otherwise copy the CodeUri
# folder - the whole repository, node_modules included - once per function first.
sam-build:
	sam build --build-in-source

# sam local start-api on :3001, its functions in Docker containers, against the local stack's
# DynamoDB Local and development identity provider: start `DYNAMODB_LOCAL_PORT=8000 make run`
# first. The containers reach the host as host.docker.internal (infra/env.local.json); on
# Linux they share the host's network, where that name is mapped to 127.0.0.1.
SAM_LOCAL_FLAGS ?= $(if $(filter Linux,$(shell uname -s)),--docker-network host --add-host host.docker.internal:127.0.0.1)
sam-local: sam-build
	sam local start-api --port 3001 --env-vars infra/env.local.json $(SAM_LOCAL_FLAGS)

coldstart:
	$(GO) run ./$(LOCAL)/cmd/coldstart -n 15

clean:
	rm -rf build .aws-sam
