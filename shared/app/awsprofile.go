package app

// The local stack and agent-eval run on a developer's machine, where AWS
// credentials (for a real Bedrock model, say) come from profiles and SSO:
// give them the SDK's whole configuration chain (a deployed function reads
// its environment only; see dependency.Config).
import _ "secscan/shared/dependency/awsprofile"
