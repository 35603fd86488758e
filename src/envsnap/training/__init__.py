"""Inside the training job: seeding, step traces, resume state and checkpoint audit."""
