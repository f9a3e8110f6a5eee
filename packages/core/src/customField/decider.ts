import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import type { CustomFieldCommand } from "./commands.js"
import type { CustomFieldDefinition, CustomFieldObject } from "./definition.js"
import type { CustomFieldEvent } from "./events.js"

/** One stream per workspace holds every definition, so a key is claimed atomically. */
export interface CustomFieldState {
  readonly definitions: ReadonlyArray<CustomFieldDefinition>
}

const isDefined = (state: CustomFieldState, object: CustomFieldObject, key: string): boolean =>
  state.definitions.some((d) => d.object === object && d.key === key)

const decide = (command: CustomFieldCommand, state: CustomFieldState): Result.Result<ReadonlyArray<CustomFieldEvent>, DomainError> => {
  switch (command.type) {
    case "DefineCustomField": {
      const { definition } = command
      if (isDefined(state, definition.object, definition.key)) {
        return Result.fail(
          new Conflict({
            message: `custom field ${definition.key} is already defined for ${definition.object}`,
            details: [{ path: "key", message: `is already defined for ${definition.object}` }]
          })
        )
      }
      return Result.succeed([{ type: "custom_field.defined", data: { definition: { ...definition, created_at: command.at } } }])
    }
    case "RemoveCustomField": {
      const { at, key, object } = command
      return isDefined(state, object, key)
        ? Result.succeed([{ type: "custom_field.removed", data: { object, key, at } }])
        : Result.fail(new NotFound({ resource: "custom_field", id: `${object}.${key}` }))
    }
  }
}

const evolve = (state: CustomFieldState, event: CustomFieldEvent): CustomFieldState => {
  switch (event.type) {
    case "custom_field.defined":
      return { definitions: [...state.definitions, event.data.definition] }
    case "custom_field.removed":
      return {
        definitions: state.definitions.filter((d) => !(d.object === event.data.object && d.key === event.data.key))
      }
  }
}

export const customFieldDecider: Decider<CustomFieldCommand, CustomFieldEvent, CustomFieldState> = {
  initialState: { definitions: [] },
  evolve,
  decide
}
