import type { IconName } from "../../../content/schema.ts";
import iconBatteryCharging from "../icons/battery-charging.ts";
import iconBot from "../icons/bot.ts";
import iconBrainCircuit from "../icons/brain-circuit.ts";
import iconCog from "../icons/cog.ts";
import iconFileSpreadsheet from "../icons/file-spreadsheet.ts";
import iconFlame from "../icons/flame.ts";
import iconGraduationCap from "../icons/graduation-cap.ts";
import iconLightbulb from "../icons/lightbulb.ts";
import iconMic from "../icons/mic.ts";
import iconRuler from "../icons/ruler.ts";
import iconShieldAlert from "../icons/shield-alert.ts";
import iconSigma from "../icons/sigma.ts";
import iconSparkles from "../icons/sparkles.ts";
import { Icon } from "./icon.tsx";

/** The icons content files may name (content/schema.ts `iconNames`). */
const contentIcons: Record<IconName, string> = {
  cog: iconCog,
  flame: iconFlame,
  "battery-charging": iconBatteryCharging,
  "shield-alert": iconShieldAlert,
  ruler: iconRuler,
  bot: iconBot,
  mic: iconMic,
  "file-spreadsheet": iconFileSpreadsheet,
  "graduation-cap": iconGraduationCap,
  sigma: iconSigma,
  lightbulb: iconLightbulb,
  sparkles: iconSparkles,
  "brain-circuit": iconBrainCircuit,
};

export function ContentIcon({ name, className }: { name: IconName; className?: string }) {
  return <Icon svg={contentIcons[name]} className={className} />;
}
