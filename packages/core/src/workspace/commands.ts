/** The engine made the default pipeline's id; the pipeline itself is decided by its own aggregate. */
export interface InitializeWorkspace {
  readonly type: "InitializeWorkspace"
  readonly defaultPipelineId: string
  readonly at: string
}

export type WorkspaceCommand = InitializeWorkspace
