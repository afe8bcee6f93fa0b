"""Common given names across the languages the firm works in (English, German, French,
Spanish, Italian, Dutch, and some others common in Europe), as data: the identifying-
detail finder treats a listed name, capitalised, as the start of a person's name.

Names that are also everyday words (May, Will, Mark, Grace…) are listed apart: they
count only with a capitalised surname after them.
"""

from __future__ import annotations

_NAMES = """
Aaron Abigail Adam Adrian Agnes Aidan Alan Albert Alex Alexander Alexandra Alfie Alice
Alicia Alison Amanda Amber Amelia Amir Amy Andrea Andrew Angela Anna Anne Annie Anthony
Archie Arthur Ashley Audrey Austin Barbara Beatrice Ben Benjamin Beth Bethany Bill Bob
Bradley Brandon Brenda Brian Bruce Caleb Callum Cameron Carl Carol Caroline Catherine
Charles Charlie Charlotte Chloe Chris Christina Christine Christopher Claire Colin Connor
Craig Dan Dana Daniel Danielle Darren David Dean Deborah Declan Dennis Derek Diana Diane
Dominic Donald Donna Dorothy Douglas Dylan Edward Eleanor Elizabeth Ella Ellie Emily Emma
Eric Ethan Evan Evelyn Fiona Florence Frances Francis Frank Freddie Gareth Gary Gavin
George Georgia Gerald Gillian Gordon Graham Gregory Hannah Harold Harriet Harry Harvey
Hayley Heather Helen Henry Holly Ian Imogen Isaac Isabel Isabella Isla Jack Jacob
Jacqueline Jake James Jamie Jane Janet Jason Jasmine Jeffrey Jennifer Jeremy Jessica Joan
Joanna Joe John Jonathan Jordan Joseph Joshua Joyce Judith Julia Julian Julie Justin
Karen Katherine Kathleen Katie Keith Kelly Kenneth Kevin Kieran Kimberly Kyle Laura
Lauren Leah Leo Leon Lewis Liam Lily Linda Lisa Logan Louis Louise Lucas Lucy Luke Lydia
Madison Malcolm Margaret Maria Marie Marcus Martin Mary Matthew Megan Melissa Michael
Michelle Molly Naomi Nathan Neil Nicholas Nicola Nigel Noah Oliver Olivia Oscar Owen
Pamela Patricia Patrick Paul Paula Peter Philip Phoebe Poppy Priya Rachel Raymond Rebecca
Richard Robert Robin Roger Ronald Rose Rosie Ruby Rupert Russell Ruth Ryan Samantha Samuel
Sandra Sarah Scott Sean Sharon Shirley Simon Sophia Sophie Stephanie Stephen Steven Stuart
Susan Tessa Theo Theodore Thomas Timothy Toby Tom Tracy Trevor Tyler Valerie Victoria
Vincent Walter Wayne Wendy Wesley William Yasmin Zachary Zoe
Andreas Anja Annika Axel Benedikt Bernd Birgit Britta Carola Carsten Christian Claudia
Dieter Dirk Dominik Elke Erik Felix Finn Florian Frank Franziska Friederike Gabriele
Gerhard Gudrun Hans Heike Heinz Helga Henrik Ingrid Jan Jannik Jens Johanna Jonas Jörg
Jürgen Karin Karl Katharina Katrin Klaus Konstantin Kristin Lars Lea Lena Lukas Maik
Manfred Mareike Marina Markus Matthias Maximilian Michaela Mia Moritz Niklas Nina Ole
Petra Philipp Ralf Renate Sabine Sebastian Silke Simone Stefan Stefanie Steffen Susanne
Svenja Sven Thorsten Tobias Torsten Ulrich Ulrike Ursula Ute Uwe Wiebke Wolfgang
Adèle Alain Alexandre Amandine Antoine Aurélie Baptiste Bastien Benoît Bernard Brigitte
Camille Catherine Cécile Céline Chantal Chloé Christophe Clément Delphine Didier Élise
Élodie Émilie Éric Étienne Fabien Florent Françoise François Frédéric Gaëlle Geneviève
Guillaume Hélène Hugo Inès Isabelle Jacques Jean Jérôme Joël Julien Laurent Léa Léon
Louise Luc Lucie Manon Margaux Marine Mathieu Maxime Mélanie Michel Monique Nathalie
Nicolas Océane Olivier Pascal Patrice Philippe Pierre Quentin Rémi Romain Sandrine
Sébastien Ségolène Solène Stéphane Sylvie Thibault Thierry Valérie Véronique Virginie Yves
Adrián Ainhoa Alba Alberto Alejandro Alicia Álvaro Ana Andrés Antonio Begoña Carlos
Carmen Cristina Diego Elena Enrique Esther Eva Fermín Fernando Francisco Gonzalo Guillermo
Ignacio Íñigo Irene Isabel Itziar Javier Jesús Jorge José Juan Lorena Lucía Luis Macarena
Manuel Marta Mercedes Miguel Montserrat Nerea Nuria Pablo Paloma Pedro Pilar Rafael Raúl
Ricardo Rocío Rodrigo Rosa Santiago Sergio Silvia Sofía Teresa Vicente Yolanda
Alessandra Alessandro Alessia Andrea Angelo Antonella Beatrice Bruno Carla Chiara Claudio
Cristiano Daniela Davide Domenico Elisa Emanuele Enrico Fabio Federica Federico Francesca
Francesco Gabriele Giacomo Gianluca Giorgia Giovanni Giulia Giuseppe Ilaria Leonardo
Lorenzo Luca Lucia Marco Martina Massimo Matteo Michele Nicola Paola Riccardo Roberta
Roberto Salvatore Sara Serena Silvia Simona Simone Stefano Tommaso Valentina Vittoria
Anouk Bram Daan Dirk Eline Femke Floor Geert Hendrik Ilse Jeroen Joost Jurgen Kees Koen
Lieke Lotte Maarten Marloes Merel Niels Pieter Roel Ruud Sanne Sem Sjoerd Thijs Tim Wouter
Agnieszka Anders Astrid Bjørn Dorota Ewa Ingrid Jakub Jens Karolina Katarzyna Lars Magnus
Marek Marta Mikkel Nils Ole Piotr Sigrid Søren Tomasz Zofia
Ahmed Aisha Ali Fatima Hassan Mohammed Omar Yusuf Leila Mehmet Ayşe Emre Elif
Wei Ming Hiroshi Yuki Kenji Arjun Rahul Anil Deepa Sunita Vikram Ravi
"""
_WORDLIKE = """
May June April August Will Mark Grace Hope Joy Faith Rose Jack Frank Bill Pat Sue Carol
Dawn Summer Iris Ivy Olive Ruby Amber Pearl Victor Norman Wade Chase Drew Lane Page Gay
Sunny Rich Sterling Gene Art Ray Guy Max Angel Felix Leon Roman Otto Ben Dean Herb Earl
Paris Florence Virginia Austin Jordan Lincoln Chelsea Brook Clay Hunter Forrest Miles
Robin Carmen Rosa Nina Luca Marco Paloma Floor Tim Sem Jan Ole Finn Ali Ming Wei Hugo
"""
WORDLIKE = frozenset(_WORDLIKE.split())
"""Given names that are also common words or places: a person only with a surname."""

GIVEN_NAMES = frozenset(_NAMES.split()) - WORDLIKE
"""Given names that start a person's name on their own."""
